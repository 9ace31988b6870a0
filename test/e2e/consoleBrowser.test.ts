import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumInstalled, launchChromium, screenshot } from '../support/browser.js';
import { skipLine } from '../support/integration.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { startSignedReceiver, type SignedReceiver } from '../support/signedReceiver.js';
import { tempDir } from '../support/tempStore.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds or `ms` passes; answers whether it held. */
const eventually = async (check: () => Promise<boolean>, ms = 5000): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(50);
  }
  return check();
};

const WIDTHS = [1280, 390] as const;

/** Run in the page (as text: the tests are compiled without the DOM's types): no content wider than the window. */
const FITS_THE_WINDOW = 'document.documentElement.scrollWidth <= window.innerWidth';

/** Run in the page: the fields and buttons that no label, aria-label or text of their own names. */
const UNLABELLED_FIELDS = `[...document.querySelectorAll('input:not([type=hidden]), select, button')]
  .filter((field) => !(field.labels && field.labels.length) && !field.getAttribute('aria-label') && !field.textContent.trim()).length`;

if (!chromiumInstalled()) {
  skipLine('the customer console in a browser', '/usr/bin/chromium (apt-get install chromium)');
} else {
  describe('the customer console in a real browser (Chromium), against chronicle serve', function () {
    this.timeout(120_000);
    let dir: ReturnType<typeof tempDir>;
    let server: ServerProcess;
    let browser: Browser;
    let receiver: SignedReceiver;
    let companyId: string;
    let demoKey: string;
    /** The platform's admin token: links are asked for over the admin API, as the platform's backend asks. */
    let adminToken: string;
    /** Every request a page made, to check that none left the server. */
    const requested: string[] = [];
    const env = () => ({ DATA_DIR: dir.path });

    before(async () => {
      dir = tempDir('chronicle-console-e2e-');
      server = await startServer({ DATA_DIR: dir.path, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
      companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())![1]!;
      demoKey = /API key (chr_[A-Za-z0-9]+)/.exec(server.output())![1]!;
      const made = await runCli(['admin-tokens', 'create', '--name', 'platform backend', '--json'], env());
      expect(made.code, made.stderr).to.equal(0);
      adminToken = (JSON.parse(made.stdout) as { token: string }).token;
      receiver = await startSignedReceiver();
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await receiver?.close();
      await server?.stop();
      dir?.dispose();
    });

    /** A single-use link from the admin API, as the platform's backend asks for one (`chronicle console link` prints the same). */
    const linkFor = async (company: string): Promise<string> => {
      const before = Date.now();
      const asked = await fetch(`${server.baseUrl}/admin/companies/${company}/console-sessions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(asked.status).to.equal(201);
      const { url, expiresAt } = ((await asked.json()) as { data: { url: string; expiresAt: string } }).data;
      // Issued between `before` and now: at most 15 minutes on from then.
      expect(Date.parse(expiresAt)).to.be.within(before + 14 * 60_000, Date.now() + 15 * 60_000);
      return url;
    };

    /** A browser context (its own cookies) of the given width, its requests recorded. */
    const contextOf = async (width: number): Promise<BrowserContext> => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      context.on('request', (request) => requested.push(request.url()));
      return context;
    };

    /** A page signed in to a company's console through a fresh link. */
    const signedIn = async (company: string, width = 1280): Promise<Page> => {
      const page = await (await contextOf(width)).newPage();
      await page.goto(await linkFor(company));
      await page.getByRole('button', { name: /^Open .*’s console$/ }).click();
      await page.waitForURL(/\/console$/);
      return page;
    };

    const api = (path: string, init: RequestInit & { key?: string } = {}) =>
      fetch(`${server.baseUrl}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${init.key ?? demoKey}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}) },
      });

    it('a link opens the console, at 1280 and at 390 pixels wide', async () => {
      for (const width of WIDTHS) {
        const page = await signedIn(companyId, width);
        expect(await page.locator('h1').textContent()).to.equal('Overview');
        expect(await page.locator('.company').textContent()).to.equal('Demo company');
        await screenshot(page, 'overview');
        // Nothing wider than the window: the page is read without scrolling sideways.
        expect(await page.evaluate(FITS_THE_WINDOW)).to.equal(true);
        await page.context().close();
      }
    });

    it('a key created there works on the API, and after it is revoked it gets 401', async () => {
      const page = await signedIn(companyId);
      await page.getByRole('link', { name: 'API keys' }).click();
      await screenshot(page, 'keys');
      await page.getByLabel('Name').fill('Browser test key');
      await page.getByLabel('Type').selectOption('custom');
      await page.getByLabel('contacts:read').check();
      await page.getByLabel('deals:read').check();
      await page.getByRole('button', { name: 'Create key' }).click();
      expect(await page.locator('h1').textContent()).to.equal('API key created');
      const key = (await page.locator('#new-key').textContent())!.trim();
      expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).to.equal(true);
      await screenshot(page, 'key-created');
      const tested = await api('/test', { key });
      expect(tested.status).to.equal(200);
      expect(((await tested.json()) as { data: { permissions: string[] } }).data.permissions).to.deep.equal(['contacts:read', 'deals:read']);

      await page.getByRole('link', { name: 'Back to the keys' }).click();
      expect(await page.getByRole('rowheader', { name: /Browser test key/ }).isVisible()).to.equal(true);
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Revoke Browser test key' }).click();
      await page.waitForURL(/done=revoked/);
      expect(await page.getByRole('status').first().textContent()).to.contain('The key was revoked');
      expect(await eventually(async () => (await api('/test', { key })).status === 401, 2000)).to.equal(true);
      await page.context().close();
    });

    it('asks before revoking, and a dismissed question revokes nothing', async () => {
      const page = await signedIn(companyId);
      await page.goto(new URL('/console/keys', server.baseUrl).href);
      page.once('dialog', (dialog) => void dialog.dismiss());
      await page.getByRole('button', { name: "Revoke Demo key" }).click();
      await sleep(200);
      expect(page.url()).to.match(/\/console\/keys$/);
      expect((await api('/test')).status).to.equal(200);
      await page.context().close();
    });

    it('"Select all" ticks the seven permissions of the specification and never contacts:erase, a checkbox of its own', async () => {
      const page = await signedIn(companyId);
      await page.goto(new URL('/console/keys', server.baseUrl).href);
      const seven = ['contacts:read', 'contacts:write', 'deals:read', 'deals:write', 'agents:read', 'webhooks:read', 'webhooks:write'];
      const ticked = async () => {
        const found: string[] = [];
        for (const permission of [...seven, 'contacts:erase']) if (await page.getByLabel(permission, { exact: true }).isChecked()) found.push(permission);
        return found;
      };
      const selectAll = page.getByLabel('Select all', { exact: true });
      const erase = page.getByLabel('contacts:erase', { exact: true });
      expect(await page.getByRole('group', { name: 'Permanent erasure' }).isVisible()).to.equal(true);
      expect(await erase.getAttribute('aria-describedby')).to.equal('key-erase-warning');
      expect(await page.locator('#key-erase-warning').textContent()).to.contain('erase a contact permanently');

      await selectAll.check();
      expect(await ticked()).to.deep.equal(seven);
      // One box unticked: "Select all" is no longer ticked; all seven again: it is.
      await page.getByLabel('deals:write', { exact: true }).uncheck();
      expect(await selectAll.isChecked()).to.equal(false);
      await page.getByLabel('deals:write', { exact: true }).check();
      expect(await selectAll.isChecked()).to.equal(true);
      // contacts:erase ticked on its own leaves "Select all" as it is, and unticking "Select all" leaves it ticked.
      await erase.check();
      expect(await selectAll.isChecked()).to.equal(true);
      await selectAll.uncheck();
      expect(await ticked()).to.deep.equal(['contacts:erase']);
      await erase.uncheck();
      await selectAll.check();

      await page.getByLabel('Name').fill('Select all key');
      await page.getByRole('button', { name: 'Create key' }).click();
      expect(await page.locator('h1').textContent()).to.equal('API key created');
      const key = (await page.locator('#new-key').textContent())!.trim();
      const tested = await api('/test', { key });
      expect(((await tested.json()) as { data: { permissions: string[] } }).data.permissions).to.deep.equal(seven);

      await page.getByRole('link', { name: 'Back to the keys' }).click();
      await page.getByLabel('Name').fill('Erasure key');
      await page.getByLabel('contacts:erase', { exact: true }).check();
      await page.getByRole('button', { name: 'Create key' }).click();
      expect(await page.locator('h1').textContent()).to.equal('API key created');
      const eraseKey = (await page.locator('#new-key').textContent())!.trim();
      expect(((await (await api('/test', { key: eraseKey })).json()) as { data: { permissions: string[] } }).data.permissions).to.deep.equal(['contacts:erase']);
      await page.context().close();
    });

    it("a local receiver is subscribed, a created contact's delivery appears in the log, and it is redelivered", async () => {
      const page = await signedIn(companyId);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('Event').selectOption('contact.created');
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Subscribe' }).click();
      expect(await page.locator('h1').textContent()).to.equal('Endpoint subscribed');
      const secret = (await page.locator('#signing-secret').textContent())!.trim();
      await screenshot(page, 'subscribed');

      const created = await api('/contacts', { method: 'POST', body: JSON.stringify({ name: 'Grace Hopper', phoneNumber: '+15555550123', tags: ['vip'] }) });
      expect(created.status).to.equal(201);
      const { id: contactId, createdAt: contactCreatedAt } = ((await created.json()) as { data: { id: string; createdAt: string } }).data;
      expect(await eventually(async () => receiver.verifiedWith(secret).length === 1)).to.equal(true);
      const [delivered] = receiver.verifiedWith(secret) as { metadata: { eventId: string } }[];

      await page.getByRole('link', { name: 'Its delivery log' }).click();
      const row = page.locator('tr', { hasText: delivered!.metadata.eventId });
      expect(await eventually(async () => {
        await page.reload();
        return (await row.locator('td[data-label="State"]').textContent())?.trim() === 'delivered';
      })).to.equal(true);
      expect((await row.locator('td[data-label="Status code"]').textContent())?.trim()).to.equal('200');
      expect(await row.locator('td[data-label="Duration"]').textContent()).to.match(/^\d+ ms$/);
      await screenshot(page, 'delivery-log');

      await row.getByRole('button', { name: /^Redeliver / }).click();
      expect(await page.getByRole('status').first().textContent()).to.equal('Queued 1 deliveries again.');
      expect(await eventually(async () => receiver.verifiedWith(secret).length === 2)).to.equal(true);
      const ids = (receiver.verifiedWith(secret) as { metadata: { eventId: string } }[]).map((envelope) => envelope.metadata.eventId);
      expect(ids).to.deep.equal([delivered!.metadata.eventId, delivered!.metadata.eventId]);

      await page.getByRole('button', { name: 'Send a test event' }).click();
      expect(await eventually(async () => receiver.verifiedWith(secret).some((e) => (e as { metadata: { test?: boolean } }).metadata.test === true))).to.equal(true);

      // The activity: the event in the feed, the contact's history field by field, and the contact as it was.
      // The page below goes back to the whole second after the one its creation was recorded in (the same
      // second as its createdAt, or the next): the update comes after both.
      await sleep(Math.max(0, Math.floor(Date.parse(contactCreatedAt) / 1000) * 1000 + 2_100 - Date.now()));
      const updated = await api(`/contacts/${contactId}`, { method: 'PUT', body: JSON.stringify({ city: 'Arlington' }) });
      expect(updated.status).to.equal(200);
      await page.getByRole('link', { name: 'Activity' }).click();
      await page.getByLabel('Type').selectOption('contact.created');
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await screenshot(page, 'activity');
      await page.getByRole('link', { name: 'Grace Hopper' }).first().click();
      expect(await page.locator('h1').textContent()).to.equal('Grace Hopper');
      const change = page.locator('.timeline > li').nth(1);
      expect(await change.locator('h3').textContent()).to.contain('contact.updated');
      // One field changed: the city, from nothing to Arlington.
      expect((await change.locator('.changes tbody tr > *').allTextContents()).map((cell) => cell.trim())).to.deep.equal(['city', 'not set', 'Arlington']);
      expect(await page.locator('.timeline > li').first().textContent()).to.contain("By API key Demo key");
      // A second after the contact was created (the page shows whole seconds), before its update.
      const createdAt = (await page.locator('.timeline > li h3 .hint').first().textContent())!.replace('at ', '').replace(' UTC', 'Z').replace(' ', 'T');
      await page.getByLabel('Time (UTC)').fill(new Date(Date.parse(createdAt) + 1000).toISOString().slice(0, 19));
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      expect(await page.locator('dl.record').textContent()).to.contain('Grace Hopper');
      expect(await page.locator('dl.record').textContent()).not.to.contain('Arlington');
      await screenshot(page, 'timeline');
      await page.context().close();
    });

    it("a second company's session sees nothing of the first", async () => {
      const made = await runCli(['companies', 'create', '--name', 'Second company', '--json'], env());
      const second = (JSON.parse(made.stdout) as { id: string }).id;
      const page = await signedIn(second);
      expect(await page.locator('.company').textContent()).to.equal('Second company');
      for (const path of ['/console', '/console/keys', '/console/webhooks', '/console/activity']) {
        await page.goto(new URL(path, server.baseUrl).href);
        const text = (await page.locator('main').textContent())!;
        expect(text, path).not.to.contain('Demo company');
        expect(text, path).not.to.contain(companyId);
        expect(text, path).not.to.contain('Grace Hopper');
        expect(text, path).not.to.contain(receiver.url);
      }
      expect(await page.locator('main').textContent()).to.contain('No event yet');
      const subscriptions = (await (await api('/webhooks')).json()) as { data: { id: string }[] };
      const theirs = await page.goto(new URL(`/console/webhooks/${subscriptions.data[0]!.id}`, server.baseUrl).href);
      expect(theirs!.status()).to.equal(404);
      await screenshot(page, 'not-yours');
      await page.context().close();
    });

    it('a used link opens nothing', async () => {
      const url = await linkFor(companyId);
      const first = await (await contextOf(1280)).newPage();
      await first.goto(url);
      await first.getByRole('button', { name: /^Open .*’s console$/ }).click();
      await first.waitForURL(/\/console$/);
      for (const width of WIDTHS) {
        const page = await (await contextOf(width)).newPage();
        const answer = await page.goto(url);
        expect(answer!.status()).to.equal(410);
        expect(await page.locator('h1').textContent()).to.equal('This link was already used');
        await screenshot(page, 'link-used');
        const console = await page.goto(new URL('/console', server.baseUrl).href);
        expect(console!.status()).to.equal(401);
        expect(await page.locator('h1').textContent()).to.equal('You are signed out');
        await page.context().close();
      }
      await first.context().close();
    });

    it('a change without the CSRF token is refused with a clear page, and changes nothing', async () => {
      const page = await signedIn(companyId);
      await page.goto(new URL('/console/keys', server.baseUrl).href);
      const rows = await page.locator('tbody tr').count();
      await page.getByLabel('contacts:read').check();
      await page.locator('form[action="/console/keys"] input[name="_csrf"]').evaluate((input) => input.remove());
      await page.getByRole('button', { name: 'Create key' }).click();
      expect(await page.locator('h1').textContent()).to.equal('This change was refused');
      await screenshot(page, 'csrf-refused');
      await page.goto(new URL('/console/keys', server.baseUrl).href);
      expect(await page.locator('tbody tr').count()).to.equal(rows);
      await page.context().close();
    });

    it('is worked with the keyboard, every field labelled, at both widths; signing out ends the session', async () => {
      for (const width of WIDTHS) {
        const page = await signedIn(companyId, width);
        await page.keyboard.press('Tab');
        expect(await page.evaluate('document.activeElement.textContent')).to.equal('Skip to content');
        await page.keyboard.press('Enter');
        expect(await page.evaluate('document.activeElement.id')).to.equal('main');
        for (const path of ['/console/keys', '/console/webhooks', '/console/activity']) {
          await page.goto(new URL(path, server.baseUrl).href);
          const unlabelled = await page.evaluate(UNLABELLED_FIELDS);
          expect(unlabelled, path).to.equal(0);
          await screenshot(page, path.slice('/console/'.length));
          expect(await page.evaluate(FITS_THE_WINDOW), path).to.equal(true);
        }
        await page.getByRole('button', { name: 'Sign out' }).focus();
        await page.keyboard.press('Enter');
        await page.waitForURL(/signed-out$/);
        await screenshot(page, 'signed-out');
        expect((await page.goto(new URL('/console', server.baseUrl).href))!.status()).to.equal(401);
        await page.context().close();
      }
    });

    it('made no request outside the server', () => {
      const origin = new URL(server.baseUrl).origin;
      const outside = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'));
      expect(requested.length).to.be.above(20);
      expect(outside).to.deep.equal([]);
    });
  });
}
