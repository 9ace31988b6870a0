import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumInstalled, launchChromium } from '../support/browser.js';
import { skipLine } from '../support/integration.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { startFailingReceiver, startSignedReceiver, type SignedReceiver } from '../support/signedReceiver.js';
import { tempDir } from '../support/tempStore.js';

/** axe-core's source, run in each page (through the browser's debugging protocol: the console's CSP allows no inline script). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The rules checked: WCAG 2.0 and 2.1, levels A and AA. */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] as const;

/** At most this many pages are reached by following links, and at most this many of each shape (the same path with other ids or queries). */
const MAX_CRAWLED = 80;
const MAX_OF_A_SHAPE = 3;

/** Links the crawl never follows: they change state or leave the console's pages. */
const NOT_FOLLOWED = [/^\/console\/logout$/, /^\/console\/assets\//, /^\/console\/login$/];

/** One violation of one page, as the failure lists it. */
interface Violation {
  readonly url: string;
  readonly width: number;
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

/** Run in the page once axe is there: the violations of the WCAG 2.x A and AA rules, each with the selectors of its nodes. */
const RUN_AXE = `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_TAGS)} }, resultTypes: ['violations'] })
  .then((results) => results.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`;

/** Run in the page: opens every disclosure (an attempt's request and response, a chart's figures), so that axe checks what they hide too. */
const OPEN_DETAILS = `document.querySelectorAll('details').forEach((details) => { details.open = true; })`;

/** Run in the page: every link's absolute address. */
const LINKS = `[...document.querySelectorAll('a[href]')].map((a) => a.href)`;

/**
 * Run in the page: the addresses the page's GET forms lead to (a filter, a search, a record's id), sent with
 * their fields as they are and, where a text or search field is empty, again with `WORD` in it (GET changes
 * nothing, so sending them is as safe as following a link).
 */
const GET_FORMS = (word: string): string => `[...document.forms].filter((form) => (form.getAttribute('method') || 'get').toLowerCase() === 'get').flatMap((form) => {
  const urlOf = (fill) => {
    const url = new URL(form.action);
    url.search = '';
    for (const field of form.elements) {
      if (!field.name || field.disabled || ['submit', 'button', 'reset', 'file'].includes(field.type)) continue;
      if (['checkbox', 'radio'].includes(field.type) && !field.checked) continue;
      const empty = field.value === '' && ['text', 'search'].includes(field.type);
      url.searchParams.append(field.name, empty && fill ? ${JSON.stringify(word)} : field.value);
    }
    return url.href;
  };
  return [urlOf(false), urlOf(true)];
})`;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** A page's shape: its path with ids replaced, and its query's names (not their values). */
const shapeOf = (url: URL): string => `${url.pathname.replace(UUID, ':id')}?${[...new Set(url.searchParams.keys())].sort().join('&')}`;

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


const describeViolation = (v: Violation): string => `${v.url} at ${v.width} px: ${v.id} (${v.impact ?? 'no impact given'}): ${v.help}\n      ${v.targets.join('\n      ')}`;

if (!chromiumInstalled()) {
  skipLine('the console’s accessibility sweep in a browser', '/usr/bin/chromium (apt-get install chromium)');
} else {
  describe('the console’s accessibility (axe-core, WCAG 2.1 A and AA) on every page, in a real browser (Chromium), against chronicle serve', function () {
    this.timeout(300_000);
    let dir: ReturnType<typeof tempDir>;
    let server: ServerProcess;
    let browser: Browser;
    let receiver: SignedReceiver;
    let failing: Awaited<ReturnType<typeof startFailingReceiver>>;
    let companyId: string;
    let demoKey: string;
    let adminToken: string;
    let contactId: string;
    let dealId: string;
    /** Every page checked, as `status url (width)`, printed at the end. */
    const checked: string[] = [];
    const violations: Violation[] = [];

    const api = async (path: string, init: RequestInit = {}): Promise<Response> =>
      fetch(`${server.baseUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${demoKey}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}) } });

    const json = async <T>(path: string, init: RequestInit = {}, status?: number): Promise<T> => {
      const response = await api(path, init);
      if (status !== undefined) expect(response.status, `${init.method ?? 'GET'} ${path}`).to.equal(status);
      return ((await response.json()) as { data: T }).data;
    };

    const consoleLink = async (): Promise<string> => {
      const asked = await fetch(`${server.baseUrl}/admin/companies/${companyId}/console-sessions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(asked.status).to.equal(201);
      return ((await asked.json()) as { data: { url: string } }).data.url;
    };

    /** Runs axe on the page as it is now and keeps what it found, under `label` (the page's URL unless a form's answer). */
    const audit = async (page: Page, label = page.url(), status = 200): Promise<Violation[]> => {
      await page.evaluate(OPEN_DETAILS);
      await page.evaluate(AXE_SOURCE);
      const found = (await page.evaluate(RUN_AXE)) as Omit<Violation, 'url' | 'width'>[];
      const width = page.viewportSize()?.width ?? 0;
      const path = label.startsWith(server.baseUrl) ? label.slice(server.baseUrl.length) : label;
      const these = found.map((v) => ({ ...v, url: path, width }));
      checked.push(`${status} ${path} (${width} px)${these.length > 0 ? `: ${these.map((v) => v.id).join(', ')}` : ''}`);
      violations.push(...these);
      return these;
    };

    /**
     * Sends the form `selector` names as a browser without the script does: `form.submit()` fires no submit
     * event, so the script's question is not asked and the server answers with its own page. Waits for that page.
     */
    const submitWithoutScript = async (page: Page, selector: string): Promise<void> => {
      await Promise.all([page.waitForEvent('load'), page.evaluate(`document.querySelector(${JSON.stringify(selector)}).submit()`)]);
    };

    /** Opens `url` and audits it (under `label`: a link's token is not printed); answers the page's status. */
    const visit = async (page: Page, url: string, label = url): Promise<number> => {
      const response = await page.goto(url);
      const status = response?.status() ?? 0;
      await audit(page, label, status);
      return status;
    };

    /** A context of the given width, signed in to the demo company's console through a fresh link (the link's page is audited on the way). */
    const signedIn = async (width: number): Promise<{ context: BrowserContext; page: Page }> => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      await page.goto(await consoleLink());
      await audit(page, `${server.baseUrl}/console/login?token=…`);
      await page.getByRole('button', { name: /^Open .*’s console$/ }).click();
      await page.waitForURL(/\/console$/);
      return { context, page };
    };

    before(async () => {
      dir = tempDir('chronicle-console-a11y-');
      server = await startServer({ DATA_DIR: dir.path, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_DELAYS_MS: '50,100' });
      companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())![1]!;
      demoKey = /API key (chr_[A-Za-z0-9]+)/.exec(server.output())![1]!;
      const made = await runCli(['admin-tokens', 'create', '--name', 'platform backend', '--json'], { DATA_DIR: dir.path });
      expect(made.code, made.stderr).to.equal(0);
      adminToken = (JSON.parse(made.stdout) as { token: string }).token;
      receiver = await startSignedReceiver();
      failing = await startFailingReceiver();
      browser = await launchChromium();

      // A company with something on every page: subscriptions (one failing, one delivering), contacts and a deal
      // with a history of changes, usage of the API, and more than one key.
      const delivered = await json<{ id: string }>('/webhooks/subscribe', { method: 'POST', body: JSON.stringify({ event: 'contact.created', target_url: receiver.url }) });
      const failed = await json<{ id: string }>('/webhooks/subscribe', { method: 'POST', body: JSON.stringify({ event: 'contact.created', target_url: failing.url }) });
      await json('/webhooks/subscribe', { method: 'POST', body: JSON.stringify({ event: 'deal.updated', target_url: receiver.url }) });
      contactId = (await json<{ id: string }>('/contacts', { method: 'POST', body: JSON.stringify({ name: 'Ada Lovelace', phoneNumber: '+15555550301', email: 'ada@example.com', tags: ['vip'] }) }, 201)).id;
      await json('/contacts', { method: 'POST', body: JSON.stringify({ name: 'Grace Hopper', phoneNumber: '+15555550302', city: 'Arlington' }) }, 201);
      await json(`/contacts/${contactId}`, { method: 'PUT', body: JSON.stringify({ city: 'London', position: 'Analyst' }) }, 200);
      dealId = (await json<{ id: string }>('/deals', { method: 'POST', body: JSON.stringify({ title: 'Analytical engine', value: 12000, contactId, stage: 'proposal' }) }, 201)).id;
      await json(`/deals/${dealId}/status`, { method: 'PUT', body: JSON.stringify({ status: 'won', stage: 'closed' }) }, 200);
      await json('/contacts?search=Ada', {}, 200);
      const deliveries = (id: string) => json<{ state: string }[]>(`/webhooks/${id}/deliveries`);
      expect(await eventually(async () => (await deliveries(delivered.id)).some((d) => d.state === 'delivered'))).to.equal(true);
      expect(await eventually(async () => (await deliveries(failed.id)).some((d) => d.state === 'failed'))).to.equal(true);
    });
    after(async () => {
      await browser?.close();
      await receiver?.close();
      await failing?.close();
      await server?.stop();
      dir?.dispose();
      if (checked.length > 0) console.log(`      pages checked (${checked.length}):\n        ${checked.join('\n        ')}`);
    });

    it('follows every console link and GET form from the overview and finds no violation on any page it reaches', async () => {
      const { context, page } = await signedIn(1280);
      const origin = new URL(server.baseUrl).origin;
      const queue = [`${server.baseUrl}/console`];
      const seen = new Set(queue);
      const shapes = new Map<string, number>();
      let crawled = 0;
      while (queue.length > 0 && crawled < MAX_CRAWLED) {
        const url = queue.shift()!;
        const status = await visit(page, url);
        crawled += 1;
        expect(status, url).to.be.below(500);
        const links = (await page.evaluate(LINKS)) as string[];
        const forms = (await page.evaluate(GET_FORMS('Ada'))) as string[];
        for (const href of [...links, ...forms]) {
          const next = new URL(href);
          next.hash = '';
          if (next.origin !== origin || !/^\/console(\/|$)/.test(next.pathname) || NOT_FOLLOWED.some((skip) => skip.test(next.pathname))) continue;
          const shape = shapeOf(next);
          if (seen.has(next.href) || (shapes.get(shape) ?? 0) >= MAX_OF_A_SHAPE) continue;
          seen.add(next.href);
          shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
          queue.push(next.href);
        }
      }
      // The crawl reached the pages of every section and the records' histories through links alone.
      const paths = checked.map((line) => line.split(' ')[1]!);
      for (const expected of ['/console/keys', '/console/webhooks', '/console/activity', `/console/contacts/${contactId}`, `/console/deals/${dealId}`]) {
        expect(paths, `the crawl reached ${expected}`).to.include(expected);
      }
      expect(paths.some((path) => /^\/console\/webhooks\/[0-9a-f-]+\/deliveries\//.test(path)), 'the crawl reached a delivery’s attempts').to.equal(true);
      await context.close();
      expect(violations, violations.map(describeViolation).join('\n')).to.deep.equal([]);
    });

    it('finds no violation on the pages that only a form reaches: errors shown, secrets shown once, confirmations, error pages', async () => {
      const { context, page } = await signedIn(1280);
      const here = violations.length;
      const base = server.baseUrl;

      // The key form with its errors, then the page that shows a new key once.
      await page.goto(`${base}/console/keys`);
      await page.getByRole('button', { name: 'Create key' }).click();
      expect(await page.locator('[aria-invalid="true"]').count()).to.be.above(0);
      await audit(page, `${base}/console/keys (POST, errors shown)`, 422);
      await page.getByLabel('Name').fill('Accessibility key');
      await page.getByLabel('Type').selectOption('custom');
      await page.getByLabel('contacts:read').check();
      await page.getByRole('button', { name: 'Create key' }).click();
      expect(await page.locator('h1').textContent()).to.equal('API key created');
      await audit(page, `${base}/console/keys (POST, key shown once)`, 201);

      // Revoking without the script's question: the server asks on a page of its own (form.submit() fires no submit event).
      await page.goto(`${base}/console/keys`);
      await submitWithoutScript(page, 'form[action$="/revoke"]');
      expect(await page.locator('h1').textContent()).to.match(/^Revoke the key /);
      await audit(page, `${base}/console/keys/:id/revoke (POST, confirmation)`);
      await page.getByRole('button', { name: 'Revoke the key' }).click();
      await page.waitForURL(/done=revoked/);
      await audit(page);

      // The subscribe form with its errors, then the page that shows the signing secret once.
      await page.goto(`${base}/console/webhooks`);
      await page.getByLabel('Endpoint URL').fill('not a url');
      await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
      expect(await page.locator('[aria-invalid="true"]').count()).to.be.above(0);
      await audit(page, `${base}/console/webhooks (POST, errors shown)`, 422);
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
      expect(await page.locator('h1').textContent()).to.equal('Endpoint subscribed');
      await audit(page, `${base}/console/webhooks (POST, secret shown once)`, 201);
      await page.getByRole('link', { name: 'Its delivery log' }).click();
      const subscription = page.url();

      // A test event sent (the notice), a rotation asked for without the script, and its new secret shown once.
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.waitForURL(/done=test/);
      await audit(page);
      await page.goto(subscription);
      await submitWithoutScript(page, 'form[action$="/rotate-secret"]');
      expect(await page.locator('h1').textContent()).to.match(/^Rotate the signing secret of /);
      await audit(page, `${subscription}/rotate-secret (POST, confirmation)`);
      await page.getByRole('button', { name: 'Rotate', exact: true }).click();
      expect(await page.locator('h1').textContent()).to.equal('Signing secret rotated');
      await audit(page, `${subscription}/rotate-secret (POST, secret shown once)`);

      // Unsubscribing without the script: its confirmation, then the list with the ended subscription.
      await page.goto(`${base}/console/webhooks`);
      await submitWithoutScript(page, 'form[action$="/unsubscribe"]');
      await audit(page, `${base}/console/webhooks/:id/unsubscribe (POST, confirmation)`);
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: /^Unsubscribe/ }).click()]);
      await audit(page);

      // A record as it was (the history's time form), a time that is not one, and the records' form.
      const earlier = new Date(Date.now() - 1000).toISOString().slice(0, 16);
      await visit(page, `${base}/console/contacts/${contactId}?asOf=${encodeURIComponent(earlier)}`);
      expect(await visit(page, `${base}/console/contacts/${contactId}?asOf=yesterday`)).to.equal(422);
      expect(await visit(page, `${base}/console/records?kind=deals&id=${dealId}`)).to.equal(200);

      // Error pages: a page that does not exist, a record that is not the company's.
      expect(await visit(page, `${base}/console/no-such-page`)).to.equal(404);
      expect(await visit(page, `${base}/console/contacts/00000000-0000-4000-8000-000000000000`)).to.equal(404);
      expect(await visit(page, `${base}/console/webhooks/00000000-0000-4000-8000-000000000000`)).to.equal(404);

      // Signing out: the signed-out page, then a console page without a session.
      await page.goto(`${base}/console`);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(/signed-out/);
      await audit(page);
      expect(await visit(page, `${base}/console/keys`)).to.be.within(400, 499);
      await context.close();

      // A link used twice, and one that is not a link.
      const link = await consoleLink();
      const once = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const first = await once.newPage();
      await first.goto(link);
      await first.getByRole('button', { name: /^Open .*’s console$/ }).click();
      await first.waitForURL(/\/console$/);
      const again = await (await browser.newContext()).newPage();
      expect(await visit(again, link, `${base}/console/login?token=… (used)`)).to.equal(410);
      expect(await visit(again, `${base}/console/login?token=not-a-token`)).to.equal(404);
      await once.close();
      await again.context().close();

      const mine = violations.slice(here);
      expect(mine, mine.map(describeViolation).join('\n')).to.deep.equal([]);
    });

    it('finds no violation on the main pages at phone width (390 pixels)', async () => {
      const { context, page } = await signedIn(390);
      const here = violations.length;
      const subscriptions = await json<{ id: string }[]>('/webhooks');
      await page.goto(`${server.baseUrl}/console/webhooks/${subscriptions[0]!.id}`);
      const attempts = await page.getByRole('link', { name: /^Attempts of / }).first().getAttribute('href');
      for (const path of ['/console', '/console/keys', '/console/webhooks', `/console/webhooks/${subscriptions[0]!.id}`, attempts!, '/console/activity', `/console/contacts/${contactId}`, `/console/deals/${dealId}`]) {
        expect(await visit(page, new URL(path, server.baseUrl).href)).to.equal(200);
      }
      await context.close();
      const mine = violations.slice(here);
      expect(mine, mine.map(describeViolation).join('\n')).to.deep.equal([]);
    });
  });
}
