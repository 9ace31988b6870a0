import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { chromiumInstalled, launchChromium, screenshot } from '../support/browser.js';
import { skipLine } from '../support/integration.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { startFailingReceiver, startSignedReceiver, type SignedReceiver } from '../support/signedReceiver.js';
import { tempDir } from '../support/tempStore.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds or `ms` passes; answers whether it held. */
const eventually = async (check: () => Promise<boolean>, ms = 10_000): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(50);
  }
  return check();
};

/** Run in the page (as text: the tests are compiled without the DOM's types): no content wider than the window. */
const FITS_THE_WINDOW = 'document.documentElement.scrollWidth <= window.innerWidth';

/** Run in the page: the elements that reach past the window's right edge (to say which, when one does). */
const TOO_WIDE = `document.documentElement.scrollWidth + ' > ' + window.innerWidth + ': ' + [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
  .slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 40)).join(' | ')`;


if (!chromiumInstalled()) {
  skipLine('the console’s delivery debugging in a browser', '/usr/bin/chromium (apt-get install chromium)');
} else {
  describe('the console’s delivery log, charts and secret rotation in a real browser (Chromium), against chronicle serve', function () {
    this.timeout(180_000);
    let dir: ReturnType<typeof tempDir>;
    let server: ServerProcess;
    let browser: Browser;
    let receiver: SignedReceiver;
    let failing: Awaited<ReturnType<typeof startFailingReceiver>>;
    let companyId: string;
    let demoKey: string;
    let adminToken: string;

    before(async () => {
      dir = tempDir('chronicle-console-deliveries-');
      server = await startServer({ DATA_DIR: dir.path, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_DELAYS_MS: '50,100' });
      companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())![1]!;
      demoKey = /API key (chr_[A-Za-z0-9]+)/.exec(server.output())![1]!;
      const made = await runCli(['admin-tokens', 'create', '--name', 'platform backend', '--json'], { DATA_DIR: dir.path });
      expect(made.code, made.stderr).to.equal(0);
      adminToken = (JSON.parse(made.stdout) as { token: string }).token;
      receiver = await startSignedReceiver();
      failing = await startFailingReceiver();
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await receiver?.close();
      await failing?.close();
      await server?.stop();
      dir?.dispose();
    });

    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.baseUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${demoKey}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}) } });

    const createContact = async (name: string, phoneNumber: string) => {
      const created = await api('/contacts', { method: 'POST', body: JSON.stringify({ name, phoneNumber }) });
      expect(created.status).to.equal(201);
    };

    /** A page signed in to the demo company's console through a fresh link from the admin API (`script: false`: with JavaScript off). */
    const signedIn = async (script = true): Promise<Page> => {
      const asked = await fetch(`${server.baseUrl}/admin/companies/${companyId}/console-sessions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      const { url } = ((await asked.json()) as { data: { url: string } }).data;
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: script })).newPage();
      await page.goto(url);
      await page.getByRole('button', { name: /^Open .*’s console$/ }).click();
      await page.waitForURL(/\/console$/);
      return page;
    };

    /** Screenshots of the page at desktop and at phone width, each fitting its window. */
    const screenshots = async (page: Page, name: string): Promise<void> => {
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await screenshot(page, name);
        expect(await page.evaluate(FITS_THE_WINDOW), `${name} at ${width}: ${String(await page.evaluate(TOO_WIDE))}`).to.equal(true);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    };

    /** Subscribes `url` to contact.created in the console; answers the subscription's id and its secret, as the page showed it once. */
    const subscribe = async (page: Page, url: string): Promise<{ id: string; secret: string }> => {
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('Event').selectOption('contact.created');
      await page.getByLabel('Endpoint URL').fill(url);
      await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
      expect(await page.locator('h1').textContent()).to.equal('Endpoint subscribed');
      const secret = (await page.locator('#signing-secret').textContent())!.trim();
      await page.getByRole('link', { name: 'Its delivery log' }).click();
      const id = /\/console\/webhooks\/([0-9a-f-]+)/.exec(page.url())![1]!;
      return { id, secret };
    };

    it('opens a failing delivery’s attempts: each request as signed, each 500 with its headers (the cookie redacted) and body', async () => {
      const page = await signedIn();
      const { id } = await subscribe(page, failing.url);
      await createContact('Ada Failing', '+15555550201');
      expect(
        await eventually(async () => {
          const listed = (await (await api(`/webhooks/${id}/deliveries`)).json()) as { data: { state: string }[] };
          return listed.data[0]?.state === 'failed';
        }),
      ).to.equal(true);
      await page.reload();
      await page.getByRole('link', { name: /^Attempts of contact\.created / }).click();
      expect(await page.locator('h1').textContent()).to.contain('contact.created');
      expect(await page.getByRole('heading', { name: /^Attempt \d+: HTTP 500$/ }).count()).to.equal(3);
      const newest = page.locator('section.attempt').first();
      // A failed attempt opens on its response.
      expect(await newest.getByText('down for maintenance').isVisible()).to.equal(true);
      expect(await newest.getByText('set-cookie: [redacted]').isVisible()).to.equal(true);
      expect(await page.content()).not.to.contain('s3cr3t-cookie');
      await newest.getByText('Request of attempt 3').click();
      expect(await newest.getByText(/^webhook-signature: v1,/m).isVisible()).to.equal(true);
      expect(await newest.getByText(`POST ${failing.url}`).isVisible()).to.equal(true);
      await screenshots(page, 'delivery-failed');
      await page.context().close();
    });

    it('opens a successful delivery’s attempt, marks a test delivery in the console and in the API, and charts the success rates', async () => {
      const page = await signedIn();
      const { id } = await subscribe(page, receiver.url);
      await createContact('Grace Delivered', '+15555550202');
      await page.getByRole('button', { name: 'Send a test event' }).click();
      expect(await page.getByRole('status').first().textContent()).to.contain('A test event is on its way');
      expect(
        await eventually(async () => {
          const listed = (await (await api(`/webhooks/${id}/deliveries`)).json()) as { data: { state: string }[] };
          return listed.data.length === 2 && listed.data.every((d) => d.state === 'delivered');
        }),
      ).to.equal(true);
      const listed = (await (await api(`/webhooks/${id}/deliveries`)).json()) as { data: { eventId: string; test: boolean }[] };
      expect(listed.data.map((d) => d.test).sort()).to.deep.equal([false, true]);
      const testEvent = listed.data.find((d) => d.test)!.eventId;

      await page.reload();
      const testRow = page.locator('tr', { hasText: testEvent });
      expect(await testRow.locator('.badge').textContent()).to.equal('test');
      expect(await page.locator('tbody .badge').count()).to.equal(1);
      // The charts: their text alternative gives the figures (two attempts, both answered 200).
      const day = page.locator('figure.chart').first();
      expect(await day.locator('svg[role="img"] title').textContent()).to.match(/^Last 24 hours: 100 % of 2 attempts answered 200/);
      expect(await page.locator('.rate-summary').allTextContents()).to.deep.equal([
        'Last 24 hours: 100 % of 2 attempts answered 200 (2 succeeded, 0 failed).',
        'Last 7 days: 100 % of 2 attempts answered 200 (2 succeeded, 0 failed).',
      ]);
      await screenshots(page, 'subscription-rates');

      await page.getByRole('link', { name: /^Attempts of contact\.created / }).first().click();
      expect(await page.getByRole('heading', { name: 'Attempt 1: HTTP 200' }).isVisible()).to.equal(true);
      await page.getByText('Request of attempt 1').click();
      expect(await page.getByText(/^webhook-id: /m).isVisible()).to.equal(true);
      await page.getByText('Response of attempt 1').click();
      expect(await page.getByText('Status 200').isVisible()).to.equal(true);
      await screenshots(page, 'delivery-delivered');
      await page.context().close();
    });

    it('rotates a secret: the receiver verifies deliveries with the old secret during the overlap, then with the new one alone', async () => {
      const page = await signedIn();
      const { id, secret: first } = await subscribe(page, receiver.url);
      const verifiedBy = (secret: string) => receiver.verifiedWith(secret).filter((e) => (e as { data: { name?: string } }).data.name?.startsWith('Rotation'));

      await page.getByLabel('Keep the previous secret signing for').selectOption('24');
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
      expect(await page.locator('h1').textContent()).to.equal('Signing secret rotated');
      const second = (await page.locator('#signing-secret').textContent())!.trim();
      expect(second).to.match(/^whsec_/).and.not.equal(first);
      expect(await page.getByText(/every delivery carries two signatures/).isVisible()).to.equal(true);
      await screenshots(page, 'secret-rotated');

      await createContact('Rotation One', '+15555550203');
      expect(await eventually(async () => verifiedBy(second).length === 1)).to.equal(true);
      // During the overlap the receiver still holding the old secret accepts it too.
      expect(verifiedBy(first)).to.have.length(1);

      // Rotated again without overlap: only the newest secret signs from now on.
      await page.getByRole('link', { name: 'Back to its delivery log' }).click();
      await page.getByLabel('Keep the previous secret signing for').selectOption('0');
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
      const third = (await page.locator('#signing-secret').textContent())!.trim();
      expect(await page.getByText(/signs nothing any more/).isVisible()).to.equal(true);
      await createContact('Rotation Two', '+15555550204');
      expect(await eventually(async () => verifiedBy(third).length === 1)).to.equal(true);
      expect(verifiedBy(second)).to.have.length(1);
      expect(verifiedBy(first)).to.have.length(1);
      // The secrets never show again: not on the subscription's page, not in its history.
      await page.goto(new URL(`/console/webhooks/${id}`, server.baseUrl).href);
      const shown = await page.content();
      const history = await (await api(`/webhooks/${id}/history`)).text();
      for (const secret of [first, second, third]) {
        expect(shown).not.to.contain(secret.slice(6));
        expect(history).not.to.contain(secret.slice(6));
      }
      expect(history).to.contain('WebhookSecretRotated');
      await page.context().close();
    });

    it('without a script, asks on a page of its own before rotating, then shows the new secret once', async () => {
      const page = await signedIn(false);
      const { id, secret: first } = await subscribe(page, receiver.url);
      await page.getByLabel('Keep the previous secret signing for').selectOption('1');
      await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
      expect(await page.locator('h1').textContent()).to.match(/^Rotate the signing secret of /);
      expect(await page.getByText('the current one signs them too for 1 hour.').isVisible()).to.equal(true);
      await screenshots(page, 'rotate-confirm');
      await page.getByRole('button', { name: 'Rotate', exact: true }).click();
      expect(await page.locator('h1').textContent()).to.equal('Signing secret rotated');
      const second = (await page.locator('#signing-secret').textContent())!.trim();
      expect(second).not.to.equal(first);
      const history = (await (await api(`/webhooks/${id}/history`)).json()) as { data: { type: string; data: { overlapHours?: number } }[] };
      expect(history.data.filter((e) => e.type === 'WebhookSecretRotated').map((e) => e.data.overlapHours)).to.deep.equal([1]);
      await page.context().close();
    });
  });
}
