import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { chromiumInstalled, launchChromium, screenshot } from '../support/browser.js';
import { skipLine } from '../support/integration.js';
import { startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/** Run in the page before its own scripts: every Content-Security-Policy violation it reports, kept in `window.cspViolations`. */
const RECORD_VIOLATIONS = `window.cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  window.cspViolations.push(event.effectiveDirective + ' blocked ' + (event.blockedURI || 'inline') + ' in ' + event.sourceFile + ':' + event.lineNumber);
});`;

if (!chromiumInstalled()) {
  skipLine('the API documentation pages in a browser', '/usr/bin/chromium (apt-get install chromium)');
} else {
  describe('/docs and /admin/docs in a real browser (Chromium), under their Content-Security-Policy', function () {
    this.timeout(120_000);
    let dir: ReturnType<typeof tempDir>;
    let server: ServerProcess;
    let browser: Browser;
    let demoKey: string;

    before(async () => {
      dir = tempDir('chronicle-docs-e2e-');
      server = await startServer({ DATA_DIR: dir.path });
      demoKey = /API key (chr_[A-Za-z0-9]+)/.exec(server.output())![1]!;
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      dir?.dispose();
    });

    /** A page of its own, its violations, console errors and requests recorded. */
    const opened = async (path: string) => {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      const consoleErrors: string[] = [];
      const requested: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      page.on('pageerror', (error) => consoleErrors.push(error.message));
      page.on('request', (request) => requested.push(request.url()));
      await page.addInitScript(RECORD_VIOLATIONS);
      const response = await page.goto(`${server.baseUrl}${path}`);
      expect(response?.headers()['content-security-policy']).to.contain("default-src 'none'");
      // Swagger UI fetched the document and rendered its operations.
      await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
      return { page, consoleErrors, requested };
    };

    const violationsOf = (page: Page) => page.evaluate('window.cspViolations') as Promise<string[]>;

    const expectNothingRefused = async (seen: Awaited<ReturnType<typeof opened>>) => {
      expect(await violationsOf(seen.page)).to.deep.equal([]);
      expect(seen.consoleErrors.filter((text) => /Content Security Policy/i.test(text))).to.deep.equal([]);
      // Everything from this server: nothing from a CDN or a validator.
      expect(seen.requested.filter((url) => !url.startsWith(server.baseUrl) && !url.startsWith('data:'))).to.deep.equal([]);
    };

    it('/docs renders every operation of the customer API, and "Try it out" calls the API, with no violation', async () => {
      const seen = await opened('/docs');
      const { page } = seen;
      expect(await page.locator('.opblock').count()).to.be.greaterThan(10);
      expect(await page.locator('.opblock-summary-path', { hasText: /^\/contacts$/ }).count()).to.be.greaterThan(0);

      await page.locator('button.authorize').first().click();
      await page.locator('.auth-container input').first().fill(demoKey);
      await page.locator('.auth-btn-wrapper button.authorize').first().click();
      await page.locator('button.btn-done').first().click();
      await page.locator('.opblock-get .opblock-summary-path', { hasText: /^\/test$/ }).first().click();
      const test = page.locator('.opblock.is-open').first();
      await test.locator('button.try-out__btn').click();
      await test.locator('button.execute').click();
      const status = test.locator('.live-responses-table .response .response-col_status').first();
      await status.waitFor({ timeout: 10_000 });
      expect((await status.textContent())?.trim()).to.equal('200');
      // The answer's JSON, highlighted.
      expect(await test.locator('.live-responses-table .microlight, .live-responses-table pre').first().textContent()).to.contain('"success": true');
      await screenshot(page, 'docs');
      await expectNothingRefused(seen);
      await page.context().close();
    });

    it('/admin/docs renders every operation of the admin API, with no violation', async () => {
      const seen = await opened('/admin/docs');
      const { page } = seen;
      expect(await page.locator('.opblock').count()).to.be.greaterThan(5);
      expect(await page.locator('.opblock-summary-path', { hasText: /^\/admin\/companies$/ }).count()).to.be.greaterThan(0);
      // An operation opened on its response schema: the models render too.
      await page.locator('.opblock-summary').first().click();
      await page.locator('.opblock.is-open button.tablinks[data-name="model"]').first().click();
      await page.locator('.opblock.is-open .model-box').first().waitFor({ timeout: 10_000 });
      await screenshot(page, 'admin-docs');
      await expectNothingRefused(seen);
      await page.context().close();
    });
  });
}
