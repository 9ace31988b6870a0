import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { chromiumInstalled, launchChromium } from '../support/browser.js';
import { freePort } from '../support/freePort.js';
import { skipLine } from '../support/integration.js';
import { nginxInstalled, nginxSampleOf, sampleForTheTest, startNginx, TEST_CERT, type RunningNginx } from '../support/nginx.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/** The page whose nginx sample operators copy: run here as it is written. */
const DOC = fileURLToPath(new URL('../../../docs/operators/tls-and-proxies.md', import.meta.url));
/** The sample's BASE_PATH. */
const BASE_PATH = '/api/external';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/**
 * One HTTPS request to nginx on 127.0.0.1:port, as a client that reached it as
 * `https://localhost:<port>` sends it (its Host names the port), trusting only
 * the test certificate.
 */
const through = (port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        servername: 'localhost',
        ca: readFileSync(TEST_CERT),
        agent: false,
        headers: { Host: `localhost:${port}`, ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${method} ${path} within 10 s`)));
    req.on('error', reject);
    req.end(body);
  });

/** A form POST as the console's pages send it from `https://localhost:<port>`: same origin, with its Origin. */
const formPost = (port: number, path: string, fields: Record<string, string | readonly string[]>, cookie?: string, origin = `https://localhost:${port}`) => {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const one of typeof value === 'string' ? [value] : value) form.append(name, one);
  return through(
    port,
    'POST',
    path,
    {
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: origin,
      'Sec-Fetch-Site': 'same-origin',
      ...(cookie ? { Cookie: cookie } : {}),
    },
    form.toString(),
  );
};

const sessionCookieOf = (answer: Answer): string | null => {
  const set = ([] as string[]).concat(answer.headers['set-cookie'] ?? []).find((line) => line.startsWith('chronicle_console=') && !line.includes('Max-Age=0'));
  return set ?? null;
};

const csrfOf = (answer: Answer): string => {
  const match = /name="_csrf" value="([^"]+)"/.exec(answer.text);
  if (!match) throw new Error(`no CSRF token on the page (status ${answer.status})`);
  return match[1]!;
};

const newKeyOf = (answer: Answer): string => {
  const match = /id="new-key"[^>]*>\s*(chr_[A-Za-z0-9_-]+)/.exec(answer.text);
  if (!match) throw new Error(`no new key on the page (status ${answer.status}): ${answer.text.slice(0, 300)}`);
  return match[1]!;
};

if (!nginxInstalled()) {
  skipLine('the nginx sample of docs/operators/tls-and-proxies.md in front of chronicle serve', '/usr/sbin/nginx (apt-get install nginx)');
} else {
  for (const publicUrl of [false, true]) {
    describe(`the nginx sample of the operators' manual, run by Debian's nginx in front of chronicle serve (TRUST_PROXY=true, CONSOLE_PUBLIC_URL ${publicUrl ? 'set' : 'unset'})`, function () {
      this.timeout(120_000);
      let dir: ReturnType<typeof tempDir>;
      let server: ServerProcess;
      let nginx: RunningNginx;
      let port: number;
      let origin: string;
      let companyId: string;
      let demoKey: string;
      let adminToken: string;
      let browser: Browser | undefined;

      before(async () => {
        dir = tempDir('chronicle-nginx-e2e-');
        port = await freePort();
        origin = `https://localhost:${port}`;
        server = await startServer({
          DATA_DIR: dir.path,
          BASE_PATH,
          TRUST_PROXY: 'true',
          ...(publicUrl ? { CONSOLE_PUBLIC_URL: origin } : {}),
        });
        companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())![1]!;
        demoKey = /API key (chr_[A-Za-z0-9]+)/.exec(server.output())![1]!;
        const made = await runCli(['admin-tokens', 'create', '--name', 'platform backend', '--json'], { DATA_DIR: dir.path });
        expect(made.code, made.stderr).to.equal(0);
        adminToken = (JSON.parse(made.stdout) as { token: string }).token;
        const sample = nginxSampleOf(readFileSync(DOC, 'utf8'));
        nginx = await startNginx(sampleForTheTest(sample, { port, upstream: new URL(server.baseUrl).host }), port);
      });
      after(async () => {
        await browser?.close();
        await nginx?.stop();
        await server?.stop();
        dir?.dispose();
      });

      /** A single-use link from the admin API, asked for through nginx. */
      const link = async (): Promise<URL> => {
        const asked = await through(
          port,
          'POST',
          `${BASE_PATH}/admin/companies/${companyId}/console-sessions`,
          { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
          '{}',
        );
        expect(asked.status, asked.text).to.equal(201);
        return new URL((JSON.parse(asked.text) as { data: { url: string } }).data.url);
      };

      it('a console link points at nginx, opens the console through it, and a key is created there with the CSRF token', async () => {
        const url = await link();
        // Unset, the link names the scheme and host the admin request came to: nginx's, as the browser reaches it.
        expect(url.origin).to.equal(origin);
        expect(url.pathname).to.equal(`${BASE_PATH}/console/login`);

        const page = await through(port, 'GET', url.pathname + url.search);
        expect(page.status, page.text).to.equal(200);
        expect(page.text).to.contain(`action="${BASE_PATH}/console/login"`);

        const opened = await formPost(port, `${BASE_PATH}/console/login`, { token: url.searchParams.get('token')! });
        expect(opened.status, opened.text).to.equal(303);
        expect(opened.headers.location).to.equal(`${BASE_PATH}/console`);
        const setCookie = sessionCookieOf(opened);
        expect(setCookie, 'a session cookie').to.be.a('string');
        // HTTPS as the browser sees it (X-Forwarded-Proto): the cookie is Secure, for the console's path only.
        expect(setCookie).to.match(/;\s*Secure\b/i);
        expect(setCookie).to.match(new RegExp(`;\\s*Path=${BASE_PATH}/console\\b`, 'i'));
        const cookie = setCookie!.split(';')[0]!;

        const overview = await through(port, 'GET', `${BASE_PATH}/console`, { Cookie: cookie });
        expect(overview.status, overview.text).to.equal(200);
        expect(overview.text).to.contain('Demo company');

        const created = await formPost(
          port,
          `${BASE_PATH}/console/keys`,
          { _csrf: csrfOf(overview), name: 'Through nginx', type: 'custom', permissions: ['contacts:read'] },
          cookie,
        );
        expect(created.status, created.text).to.equal(201);
        expect(created.text).to.contain('API key created');
        const key = newKeyOf(created);

        const tested = await through(port, 'GET', `${BASE_PATH}/test`, { Authorization: `Bearer ${key}` });
        expect(tested.status, tested.text).to.equal(200);
        expect((JSON.parse(tested.text) as { data: { permissions: string[] } }).data.permissions).to.deep.equal(['contacts:read']);
      });

      it('still refuses a console change from another origin through nginx, whatever X-Forwarded-Host a client sends', async () => {
        const url = await link();
        const token = url.searchParams.get('token')!;
        const foreign = await formPost(port, `${BASE_PATH}/console/login`, { token }, undefined, 'https://elsewhere.example');
        expect(foreign.status).to.equal(403);
        expect(foreign.text).to.contain('This link was not opened here');
        // The sample drops a client's X-Forwarded-Host, which TRUST_PROXY would otherwise read as the host.
        const forged = await through(
          port,
          'POST',
          `${BASE_PATH}/console/login`,
          { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://elsewhere.example', 'X-Forwarded-Host': 'elsewhere.example' },
          new URLSearchParams({ token }).toString(),
        );
        expect(forged.status).to.equal(403);
        // Another port of the same host is another origin.
        const otherPort = await formPost(port, `${BASE_PATH}/console/login`, { token }, undefined, `https://localhost:${port + 1}`);
        expect(otherPort.status).to.equal(403);
        // Nothing used the link up: it still opens the console.
        expect((await formPost(port, `${BASE_PATH}/console/login`, { token })).status).to.equal(303);
      });

      it('answers the API and /health through nginx, and not /metrics, in any spelling Chronicle would route', async () => {
        const health = await through(port, 'GET', `${BASE_PATH}/health`);
        expect(health.status, health.text).to.equal(200);
        const tested = await through(port, 'GET', `${BASE_PATH}/test`, { Authorization: `Bearer ${demoKey}` });
        expect(tested.status, tested.text).to.equal(200);
        expect(JSON.parse(tested.text)).to.nested.include({ 'data.companyId': companyId });
        for (const path of ['/metrics', '/metrics/', '/METRICS', '/Metrics/', '//metrics', '/%6Detrics']) {
          const metrics = await through(port, 'GET', `${BASE_PATH}${path}`);
          expect(metrics.status, path).to.equal(404);
          expect(metrics.text, path).not.to.contain('# HELP');
        }
        // Chronicle itself serves them (to the private network): the 404 is nginx's.
        const direct = await fetch(`${new URL(server.baseUrl).origin}${BASE_PATH}/metrics`);
        expect(direct.status).to.equal(200);
        expect(await direct.text()).to.contain('# HELP');
      });

      it('in Chromium: the link opens the console through nginx, and a key is created there', async function () {
        if (!chromiumInstalled()) this.skip();
        browser = await launchChromium();
        const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        await page.goto((await link()).href);
        await page.getByRole('button', { name: /^Open .*console$/ }).click();
        await page.waitForURL(`${origin}${BASE_PATH}/console`);
        expect(await page.locator('.company').textContent()).to.equal('Demo company');
        await page.getByRole('link', { name: 'API keys' }).click();
        await page.getByLabel('Name').fill('Chromium through nginx');
        await page.getByLabel('Type').selectOption('custom');
        await page.getByLabel('deals:read').check();
        await page.getByRole('button', { name: 'Create key' }).click();
        expect(await page.locator('h1').textContent()).to.equal('API key created');
        const key = (await page.locator('#new-key').textContent())!.trim();
        const tested = await through(port, 'GET', `${BASE_PATH}/test`, { Authorization: `Bearer ${key}` });
        expect(tested.status, tested.text).to.equal(200);
        expect((JSON.parse(tested.text) as { data: { permissions: string[] } }).data.permissions).to.deep.equal(['deals:read']);
        await context.close();
      });
    });
  }
}
