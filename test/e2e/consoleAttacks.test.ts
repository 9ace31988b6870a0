import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumInstalled, launchChromium, screenshot } from '../support/browser.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/** The attacker's site: another name than the console's (so another site, as SameSite and Sec-Fetch-Site see it), on loopback. */
const ATTACKER_HOST = 'attacker.test';

/** A page of the attacker's site: whatever HTML it is given, at the path it is given. */
interface AttackerSite {
  readonly origin: string;
  serve(path: string, html: string): string;
  close(): Promise<void>;
}

const startAttackerSite = async (): Promise<AttackerSite> => {
  const pages = new Map<string, string>();
  const server: Server = createServer((request, response) => {
    const html = pages.get(request.url ?? '');
    response.writeHead(html === undefined ? 404 : 200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://${ATTACKER_HOST}:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    serve(path, html) {
      pages.set(path, html);
      return `${origin}${path}`;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

const escapeAttribute = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** An attacker's page that posts a form to `action` as soon as it loads (no click). */
const autoSubmitting = (action: string, fields: Record<string, string> = {}): string =>
  `<!doctype html><form method="post" action="${escapeAttribute(action)}">` +
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeAttribute(name)}" value="${escapeAttribute(value)}">`)
    .join('') +
  `</form><script>document.forms[0].submit()</script>`;

if (!chromiumInstalled()) {
  console.log('  skipped: the console attacked from another site (/usr/bin/chromium is missing: apt-get install chromium)');
} else {
  describe('the customer console attacked from another site, in a real browser (Chromium)', function () {
    this.timeout(120_000);
    let dir: ReturnType<typeof tempDir>;
    let server: ServerProcess;
    let browser: Browser;
    let attacker: AttackerSite;
    let adminToken: string;
    let alpha: string;
    let bravo: string;
    const env = () => ({ DATA_DIR: dir.path });

    before(async () => {
      dir = tempDir('chronicle-console-attacks-');
      server = await startServer({ DATA_DIR: dir.path });
      const made = await runCli(['admin-tokens', 'create', '--name', 'platform backend', '--json'], env());
      expect(made.code, made.stderr).to.equal(0);
      adminToken = (JSON.parse(made.stdout) as { token: string }).token;
      alpha = await newCompany('Alpha');
      bravo = await newCompany('Bravo');
      attacker = await startAttackerSite();
      browser = await launchChromium([`--host-resolver-rules=MAP ${ATTACKER_HOST} 127.0.0.1`]);
    });
    after(async () => {
      await browser?.close();
      await attacker?.close();
      await server?.stop();
      dir?.dispose();
    });

    const admin = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: { data: Record<string, unknown> } }> => {
      const answer = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await answer.text();
      return { status: answer.status, body: text === '' ? { data: {} } : JSON.parse(text) };
    };

    async function newCompany(name: string): Promise<string> {
      const made = await admin('POST', '/admin/companies', { name });
      expect(made.status).to.equal(201);
      return made.body.data.id as string;
    }

    /** A single-use link, as the platform's backend asks for one. */
    const linkFor = async (company: string): Promise<string> => {
      const asked = await admin('POST', `/admin/companies/${company}/console-sessions`, {});
      expect(asked.status).to.equal(201);
      return asked.body.data.url as string;
    };

    const consoleUrl = (path = '') => new URL(`/console${path}`, server.baseUrl).href;

    /** The company name in the header of the console's overview, as this browser's session sees it (null when signed out). */
    const signedInAs = async (context: BrowserContext): Promise<string | null> => {
      const page = await context.newPage();
      const answer = await page.goto(consoleUrl());
      const name = answer?.status() === 200 ? await page.locator('.company').textContent() : null;
      await page.close();
      return name;
    };

    /** A browser signed in to a company's console: the link opened, its button clicked. */
    const victimOf = async (company: string): Promise<{ context: BrowserContext; page: Page }> => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      await page.goto(await linkFor(company));
      await page.getByRole('button', { name: /^Open / }).click();
      await page.waitForURL(/\/console$/);
      return { context, page };
    };

    it('a link of another company, forced on a signed-in browser, replaces nothing until its button is clicked (login CSRF)', async () => {
      const { context, page } = await victimOf(alpha);
      const swap = attacker.serve('/swap', `<!doctype html><script>location.href = ${JSON.stringify(await linkFor(bravo))}</script>`);
      await page.goto(swap);
      await page.waitForURL(/\/console\/login\?token=/);
      await page.waitForLoadState('networkidle');
      // The page names the company the link opens, and the session it would replace; nothing was sent by itself.
      expect(await page.locator('h1').textContent()).to.equal('Open Bravo’s console');
      expect(await page.locator('[data-other-session]').textContent()).to.contain('Alpha');
      await screenshot(page, 'link-over-another-session');
      expect(await signedInAs(context)).to.equal('Alpha');
      // Only an explicit click replaces the session.
      await page.getByRole('button', { name: 'Open Bravo’s console' }).click();
      await page.waitForURL(/\/console$/);
      expect(await signedInAs(context)).to.equal('Bravo');
      await context.close();
    });

    it('a link posted at once from another site is refused (403), and the session stays', async () => {
      const { context, page } = await victimOf(alpha);
      const token = new URL(await linkFor(bravo)).searchParams.get('token')!;
      const posted = page.waitForResponse((response) => response.url() === consoleUrl('/login') && response.request().method() === 'POST');
      await page.goto(attacker.serve('/login-post', autoSubmitting(consoleUrl('/login'), { token })));
      const answer = await posted;
      expect(answer.status()).to.equal(403);
      expect(await answer.headerValue('set-cookie')).to.equal(null);
      expect(await signedInAs(context)).to.equal('Alpha');
      await context.close();
    });

    for (const [what, target] of [
      ['a sign-out', () => consoleUrl('/logout')],
      ['a key revocation', () => consoleUrl('/keys/00000000-0000-7000-8000-000000000000/revoke')],
    ] as const) {
      it(`${what} posted from another site changes nothing: 403, the cookie kept, the session open (forced sign-out)`, async () => {
        const { context, page } = await victimOf(alpha);
        const posted = page.waitForResponse((response) => response.url() === target() && response.request().method() === 'POST');
        await page.goto(attacker.serve(`/force-${what.length}`, autoSubmitting(target())));
        const answer = await posted;
        expect(answer.status()).to.equal(403);
        expect(await answer.headerValue('set-cookie')).to.equal(null);
        await page.waitForLoadState('load');
        expect(await page.locator('h1').textContent()).to.equal('This change was refused');
        expect((await context.cookies()).map((cookie) => cookie.name)).to.include('chronicle_console');
        expect(await signedInAs(context)).to.equal('Alpha');
        await context.close();
      });
    }

    it("the platform ends a company's sessions from the CLI, another process: each browser is signed out at its next request", async () => {
      const first = await victimOf(bravo);
      const second = await victimOf(bravo);
      const other = await victimOf(alpha);
      const ended = await runCli(['console', 'sessions', 'end', '--company', bravo, '--json'], env());
      expect(ended.code, ended.stderr).to.equal(0);
      expect(JSON.parse(ended.stdout)).to.deep.include({ companyId: bravo });
      expect((JSON.parse(ended.stdout) as { ended: number }).ended).to.be.at.least(2);
      for (const { page } of [first, second]) {
        // A form the page still shows changes nothing now.
        await page.goto(consoleUrl('/keys'));
        expect(await page.locator('h1').textContent()).to.equal('You are signed out');
      }
      expect(await signedInAs(other.context)).to.equal('Alpha');
      const unknown = await runCli(['console', 'sessions', 'end', '--company', '00000000-0000-7000-8000-000000000000'], env());
      expect(unknown.code).to.equal(1);
      expect(unknown.stderr).to.contain('not found');
      for (const { context } of [first, second, other]) await context.close();
    });

    it('revoking the admin token that asked for a link ends the session it opened (chronicle admin-tokens revoke)', async () => {
      const made = await runCli(['admin-tokens', 'create', '--name', 'leaked backend', '--json'], env());
      const leaked = JSON.parse(made.stdout) as { id: string; token: string };
      const asked = await fetch(`${server.baseUrl}/admin/companies/${alpha}/console-sessions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${leaked.token}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      const { url } = ((await asked.json()) as { data: { url: string } }).data;
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(url);
      await page.getByRole('button', { name: 'Open Alpha’s console' }).click();
      await page.waitForURL(/\/console$/);
      const kept = await victimOf(alpha);
      const revoked = await runCli(['admin-tokens', 'revoke', leaked.id, '--json'], env());
      expect(revoked.code, revoked.stderr).to.equal(0);
      expect(JSON.parse(revoked.stdout)).to.deep.include({ id: leaked.id, revoked: true, endedConsoleSessions: 1 });
      expect(await signedInAs(context)).to.equal(null);
      expect(await signedInAs(kept.context)).to.equal('Alpha');
      await context.close();
      await kept.context.close();
    });

    it('a key revocation posted from another site leaves the key working', async () => {
      const { context, page } = await victimOf(alpha);
      const issued = await admin('POST', `/admin/companies/${alpha}/keys`, { name: 'Integration', type: 'generic', permissions: ['contacts:read'] });
      expect(issued.status).to.equal(201);
      const { id, key } = issued.body.data as { id: string; key: string };
      const target = consoleUrl(`/keys/${id}/revoke`);
      const posted = page.waitForResponse((response) => response.url() === target && response.request().method() === 'POST');
      await page.goto(attacker.serve('/revoke', autoSubmitting(target)));
      expect((await posted).status()).to.equal(403);
      const used = await fetch(`${server.baseUrl}/contacts`, { headers: { Authorization: `Bearer ${key}` } });
      expect(used.status).to.equal(200);
      await context.close();
    });
  });
}
