import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { chromiumInstalled, launchChromium, screenshot } from '../support/browser.js';
import { skipLine } from '../support/integration.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/** Run in the page (as text: the tests are compiled without the DOM's types): no content wider than the window. */
const FITS_THE_WINDOW = 'document.documentElement.scrollWidth <= window.innerWidth';

/** Run in the page: the elements that reach past the window's right edge (to say which, when one does). */
const TOO_WIDE = `document.documentElement.scrollWidth + ' > ' + window.innerWidth + ': ' + [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
  .slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 40)).join(' | ')`;

/** Run in the page: the fields and buttons that no label, aria-label or text of their own names. */
const UNLABELLED_FIELDS = `[...document.querySelectorAll('input:not([type=hidden]), select, button')]
  .filter((field) => !(field.labels && field.labels.length) && !field.getAttribute('aria-label') && !field.textContent.trim()).length`;

if (!chromiumInstalled()) {
  skipLine('the console’s search in a browser', '/usr/bin/chromium (apt-get install chromium)');
} else {
  describe('the console’s search in a real browser (Chromium), against chronicle serve', function () {
    this.timeout(120_000);
    let dir: ReturnType<typeof tempDir>;
    let server: ServerProcess;
    let browser: Browser;
    let companyId: string;
    let demoKey: string;
    let adminToken: string;
    const ids: Record<string, string> = {};

    const api = async (method: string, path: string, body?: unknown): Promise<Record<string, any>> => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${demoKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(res.status, `${method} ${path}`).to.be.lessThan(300);
      return ((await res.json()) as { data: Record<string, any> }).data;
    };

    before(async () => {
      dir = tempDir('chronicle-console-search-');
      server = await startServer({ DATA_DIR: dir.path });
      companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())![1]!;
      demoKey = /API key (chr_[A-Za-z0-9]+)/.exec(server.output())![1]!;
      const made = await runCli(['admin-tokens', 'create', '--name', 'platform backend', '--json'], { DATA_DIR: dir.path });
      expect(made.code, made.stderr).to.equal(0);
      adminToken = (JSON.parse(made.stdout) as { token: string }).token;
      ids.ada = (await api('POST', '/contacts', { name: 'Ada Lovelace', phoneNumber: '+442079460001', email: 'ada@engines.example', currentCompany: 'Analytical Society' })).id;
      ids.grace = (await api('POST', '/contacts', { name: 'Grace Hopper', phoneNumber: '+15555550101', email: 'grace@navy.example' })).id;
      ids.engine = (await api('POST', '/deals', { title: 'Analytical Engine', value: 5000, currency: 'GBP', stage: 'Proposal', contactId: ids.ada })).id;
      ids.cobol = (await api('POST', '/deals', { title: 'COBOL compiler', value: 1200, currency: 'USD', contactId: ids.grace })).id;
      await api('PUT', `/deals/${ids.cobol}/status`, { status: 'won' });
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      dir?.dispose();
    });

    /** A page signed in to the demo company's console through a fresh link from the admin API. */
    const signedIn = async (): Promise<Page> => {
      const asked = await fetch(`${server.baseUrl}/admin/companies/${companyId}/console-sessions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      const { url } = ((await asked.json()) as { data: { url: string } }).data;
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
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

    /** Types `text` into the header's search box and submits it with Enter, as a person would. */
    const searchFor = async (page: Page, text: string): Promise<void> => {
      const box = page.getByRole('searchbox', { name: 'Find a contact or deal' });
      await box.fill('');
      await box.pressSequentially(text);
      await Promise.all([page.waitForURL(/\/console\/search\?q=/), box.press('Enter')]);
    };

    it('types a contact’s name in the header’s search, opens the contact found, and lands on its history', async () => {
      const page = await signedIn();
      await screenshots(page, 'overview-with-search');
      await searchFor(page, 'lovelace');
      expect(await page.locator('h1').textContent()).to.equal('Results for “lovelace”');
      expect(new URL(page.url()).searchParams.get('q')).to.equal('lovelace');
      // The box keeps what was searched.
      expect(await page.getByRole('searchbox', { name: 'Find a contact or deal' }).inputValue()).to.equal('lovelace');
      const contacts = page.getByRole('region', { name: /^Contacts/ });
      const deals = page.getByRole('region', { name: /^Deals/ });
      expect(await contacts.getByRole('link').allTextContents()).to.deep.equal(['Ada Lovelace']);
      // The deal is found by its contact's name.
      expect(await deals.getByRole('link').allTextContents()).to.deep.equal(['Analytical Engine']);
      await screenshots(page, 'search-results');

      await contacts.getByRole('link', { name: 'Ada Lovelace' }).click();
      await page.waitForURL(new RegExp(`/console/contacts/${ids.ada}$`));
      expect(await page.locator('h1').textContent()).to.equal('Ada Lovelace');
      expect(await page.getByRole('heading', { name: 'History, oldest first' }).isVisible()).to.equal(true);
      expect(await page.getByRole('heading', { name: /^contact\.created at / }).isVisible()).to.equal(true);
      await page.context().close();
    });

    it('finds a deal by its contact’s e-mail, opens it, and lands on the deal’s history with its status change', async () => {
      const page = await signedIn();
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await searchFor(page, 'GRACE@navy');
      const deals = page.getByRole('region', { name: /^Deals/ });
      expect(await deals.getByRole('link').allTextContents()).to.deep.equal(['COBOL compiler']);
      expect(await deals.getByText('won · 1,200 USD · with Grace Hopper').isVisible()).to.equal(true);
      await deals.getByRole('link', { name: 'COBOL compiler' }).click();
      await page.waitForURL(new RegExp(`/console/deals/${ids.cobol}$`));
      expect(await page.locator('h1').textContent()).to.equal('COBOL compiler');
      expect(await page.getByRole('heading', { name: /^deal\.status_changed at / }).isVisible()).to.equal(true);
      await page.context().close();
    });

    it('is reached and sent with the keyboard alone, after the navigation, at both widths; every field of the results labelled', async () => {
      for (const width of [1280, 390]) {
        const page = await signedIn();
        await page.setViewportSize({ width, height: 900 });
        const visited: string[] = [];
        for (let i = 0; i < 12 && (await page.evaluate('document.activeElement.id')) !== 'header-search'; i++) {
          await page.keyboard.press('Tab');
          visited.push(String(await page.evaluate('document.activeElement.textContent.trim() || document.activeElement.id')));
        }
        expect(visited, String(width)).to.deep.equal(['Skip to content', 'Overview', 'API keys', 'Webhooks', 'Activity', 'header-search']);
        await page.keyboard.press('Tab');
        expect(await page.evaluate('document.activeElement.textContent'), 'after the box, its button').to.equal('Search');
        await page.keyboard.press('Shift+Tab');
        await page.keyboard.type('cobol');
        await Promise.all([page.waitForURL(/\/console\/search\?q=cobol$/), page.keyboard.press('Enter')]);
        expect(await page.getByRole('region', { name: /^Deals/ }).getByRole('link').allTextContents()).to.deep.equal(['COBOL compiler']);
        expect(await page.evaluate(UNLABELLED_FIELDS)).to.equal(0);
        await page.context().close();
      }
    });

    it('shows what to type for an empty search, says when nothing matches, and refuses a search too long', async () => {
      const page = await signedIn();
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL(/\/console\/search\?q=$/);
      expect(await page.locator('h1').textContent()).to.equal('Search');
      expect(await page.getByRole('heading', { name: 'Type what you are looking for' }).isVisible()).to.equal(true);
      await screenshots(page, 'search-empty');

      await searchFor(page, 'babbage');
      expect(await page.getByRole('status').textContent()).to.contain('Nothing matches “babbage”');
      await screenshots(page, 'search-no-match');

      // The box takes 200 characters at most; a longer one (a hand-made URL) gets a page saying so.
      const box = page.getByRole('searchbox', { name: 'Find a contact or deal' });
      await box.fill('');
      await box.pressSequentially('y'.repeat(205), { delay: 0 });
      expect(await box.inputValue()).to.have.length(200);
      const response = await page.goto(new URL(`/console/search?q=${'y'.repeat(201)}`, server.baseUrl).href);
      expect(response?.status()).to.equal(422);
      expect(await page.getByRole('heading', { name: 'That search is too long' }).isVisible()).to.equal(true);
      await screenshots(page, 'search-too-long');
      await page.context().close();
    });
  });
}
