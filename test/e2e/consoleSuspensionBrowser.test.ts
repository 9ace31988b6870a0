import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { chromiumInstalled, launchChromium, screenshot } from '../support/browser.js';
import { skipLine } from '../support/integration.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

if (!chromiumInstalled()) {
  skipLine('a suspended company\'s console in a browser', '/usr/bin/chromium (apt-get install chromium)');
} else {
  /**
   * A customer signed in to the console in a real browser (Chromium) is signed out
   * when the platform suspends the company: the next page is the signed-out page,
   * and no new link is issued until the company is resumed.
   */
  describe('a suspended company\'s console in a real browser (Chromium), against chronicle serve', function () {
    this.timeout(120_000);
    let dir: ReturnType<typeof tempDir>;
    let server: ServerProcess;
    let browser: Browser;
    let companyId: string;
    let adminToken: string;

    before(async () => {
      dir = tempDir('chronicle-console-suspend-');
      server = await startServer({ DATA_DIR: dir.path });
      companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())![1]!;
      const made = await runCli(['admin-tokens', 'create', '--name', 'platform backend', '--json'], { DATA_DIR: dir.path });
      expect(made.code, made.stderr).to.equal(0);
      adminToken = (JSON.parse(made.stdout) as { token: string }).token;
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
      dir?.dispose();
    });

    const admin = (method: string, path: string, body: unknown = {}) =>
      fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const signedIn = async (): Promise<Page> => {
      const asked = await admin('POST', `/admin/companies/${companyId}/console-sessions`);
      expect(asked.status).to.equal(201);
      const { url } = ((await asked.json()) as { data: { url: string } }).data;
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await page.goto(url);
      await page.getByRole('button', { name: /^Open .*’s console$/ }).click();
      await page.waitForURL(/\/console$/);
      expect(await page.locator('h1').textContent()).to.equal('Overview');
      return page;
    };

    it('signs a signed-in session out at its next page once the company is suspended; a new link is refused until it is resumed', async () => {
      const page = await signedIn();
      await page.getByRole('link', { name: 'API keys' }).click();
      expect(await page.locator('h1').textContent()).to.equal('API keys');

      const suspended = await admin('POST', `/admin/companies/${companyId}/suspend`, { reason: 'Unpaid invoices' });
      expect(suspended.status).to.equal(200);

      const answer = await page.reload();
      expect(answer?.status()).to.equal(401);
      expect(await page.locator('h1').textContent()).to.equal('You are signed out');
      await screenshot(page, 'suspended-signed-out');
      // Back to a page of the console: still signed out (the cookie was cleared).
      await page.goto(`${server.baseUrl}/console`);
      expect(await page.locator('h1').textContent()).to.equal('You are signed out');
      await page.context().close();

      const refused = await admin('POST', `/admin/companies/${companyId}/console-sessions`);
      expect(refused.status).to.equal(409);
      expect(((await refused.json()) as { error: string }).error).to.equal('Company suspended');

      expect((await admin('POST', `/admin/companies/${companyId}/resume`)).status).to.equal(200);
      const again = await signedIn();
      await again.context().close();
    });
  });
}
