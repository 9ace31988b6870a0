import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { DOCS_CONTENT_SECURITY_POLICY } from '../../src/http/routes/openapi.js';
import { startChronicle, type Chronicle } from '../../src/startup/startChronicle.js';
import { tempDir } from '../support/tempStore.js';

/** The committed test-only certificate for localhost / 127.0.0.1 (test/fixtures/tls/README.md). */
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/tls/', import.meta.url));
const CERT = join(FIXTURES, 'cert.pem');
const KEY = join(FIXTURES, 'key.pem');

interface Answer {
  readonly status: number;
  readonly headers: Headers;
}

/** One HTTPS request that trusts only the test certificate; the body is read and dropped. */
const httpsGet = (port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, headers, ca: readFileSync(CERT), servername: 'localhost' }, (res) => {
      res.resume();
      res.on('end', () => {
        const fetched = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') fetched.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: fetched });
      });
    });
    req.setTimeout(5000, () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end();
  });

/** A Chronicle on a fresh DATA_DIR with these variables, stopped and removed by `stop`. */
const started = async (env: NodeJS.ProcessEnv): Promise<{ chronicle: Chronicle; stop: () => Promise<void> }> => {
  const dir = tempDir('chronicle-headers-');
  const chronicle = await startChronicle(loadConfig({ DATA_DIR: dir.path, PORT: '0', ...env }), createLogger('silent'));
  return {
    chronicle,
    stop: async () => {
      await chronicle.close();
      dir.dispose();
    },
  };
};

/** A path of each part of the app: operations, the customer API, the admin API, the console, the docs, an unknown path. */
const EVERY_KIND = ['/health', '/test', '/admin/companies', '/console', '/docs', '/admin/docs', '/docs/assets/docs-init.js', '/no/such/route'];

describe('Strict-Transport-Security (HSTS_MAX_AGE_SECONDS, HSTS_INCLUDE_SUBDOMAINS)', function () {
  this.timeout(30_000);

  describe("over Chronicle's own TLS, by default", () => {
    let server: Awaited<ReturnType<typeof started>>;
    before(async () => (server = await started({ TLS_CERT_FILE: CERT, TLS_KEY_FILE: KEY })));
    after(() => server?.stop());

    it('is on every response for a year, without includeSubDomains: API, admin API, console, docs and errors alike', async () => {
      const port = server.chronicle.port!;
      const answers = await Promise.all(EVERY_KIND.map((path) => httpsGet(port, path)));
      expect(answers.map((answer) => answer.status)).to.include.members([200, 401, 404]);
      for (const [i, answer] of answers.entries()) {
        expect(answer.headers.get('strict-transport-security'), EVERY_KIND[i]).to.equal('max-age=31536000');
      }
      const authorized = await httpsGet(port, '/test', { Authorization: `Bearer ${server.chronicle.demo!.key}` });
      expect(authorized.status).to.equal(200);
      expect(authorized.headers.get('strict-transport-security')).to.equal('max-age=31536000');
    });
  });

  it('says what HSTS_MAX_AGE_SECONDS and HSTS_INCLUDE_SUBDOMAINS say', async () => {
    const server = await started({ TLS_CERT_FILE: CERT, TLS_KEY_FILE: KEY, HSTS_MAX_AGE_SECONDS: '600', HSTS_INCLUDE_SUBDOMAINS: 'true' });
    try {
      for (const path of ['/health', '/docs', '/no/such/route']) {
        const answer = await httpsGet(server.chronicle.port!, path);
        expect(answer.headers.get('strict-transport-security'), path).to.equal('max-age=600; includeSubDomains');
      }
    } finally {
      await server.stop();
    }
  });

  it('is not sent at all with HSTS_MAX_AGE_SECONDS=0', async () => {
    const server = await started({ TLS_CERT_FILE: CERT, TLS_KEY_FILE: KEY, HSTS_MAX_AGE_SECONDS: '0', HSTS_INCLUDE_SUBDOMAINS: 'true' });
    try {
      for (const path of ['/health', '/docs', '/no/such/route']) {
        const answer = await httpsGet(server.chronicle.port!, path);
        expect(answer.status, path).to.be.oneOf([200, 404]);
        expect(answer.headers.has('strict-transport-security'), path).to.equal(false);
      }
    } finally {
      await server.stop();
    }
  });

  it('is never sent over plain HTTP, whatever X-Forwarded-Proto says without TRUST_PROXY', async () => {
    const server = await started({});
    try {
      const origin = `http://127.0.0.1:${server.chronicle.port!}`;
      for (const path of EVERY_KIND) {
        for (const headers of [{}, { 'X-Forwarded-Proto': 'https' }] as Record<string, string>[]) {
          const answer = await fetch(`${origin}${path}`, { headers, redirect: 'manual' });
          await answer.arrayBuffer();
          expect(answer.headers.has('strict-transport-security'), `${path} ${JSON.stringify(headers)}`).to.equal(false);
        }
      }
    } finally {
      await server.stop();
    }
  });

  it('is sent behind a TLS-terminating proxy (TRUST_PROXY) when X-Forwarded-Proto says https, and only then', async () => {
    const server = await started({ TRUST_PROXY: 'true' });
    try {
      const origin = `http://127.0.0.1:${server.chronicle.port!}`;
      const hstsOf = async (path: string, headers: Record<string, string>) => {
        const answer = await fetch(`${origin}${path}`, { headers, redirect: 'manual' });
        await answer.arrayBuffer();
        return answer.headers.get('strict-transport-security');
      };
      for (const path of EVERY_KIND) {
        expect(await hstsOf(path, { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': '203.0.113.7' }), path).to.equal('max-age=31536000');
        expect(await hstsOf(path, { 'X-Forwarded-Proto': 'http' }), path).to.equal(null);
        expect(await hstsOf(path, {}), path).to.equal(null);
      }
    } finally {
      await server.stop();
    }
  });
});

describe('the headers of /docs and /admin/docs', function () {
  this.timeout(30_000);
  let server: Awaited<ReturnType<typeof started>>;
  let origin: string;
  before(async () => {
    server = await started({ BASE_PATH: '/api/external' });
    origin = `http://127.0.0.1:${server.chronicle.port!}`;
  });
  after(() => server?.stop());

  const expectDocsHeaders = (headers: Headers, where: string) => {
    expect(headers.get('content-security-policy'), where).to.equal(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
        "form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'",
    );
    expect(headers.get('x-frame-options'), where).to.equal('DENY');
    expect(headers.get('x-content-type-options'), where).to.equal('nosniff');
  };

  it('a strict Content-Security-Policy: no inline script or style, no eval, nothing from elsewhere, no framing', () => {
    expect(DOCS_CONTENT_SECURITY_POLICY).not.to.match(/unsafe-|\*|https?:/);
  });

  for (const docs of ['/api/external/docs', '/api/external/admin/docs']) {
    it(`on ${docs}, each of its assets, and an asset that does not exist`, async () => {
      const page = await fetch(`${origin}${docs}`);
      expect(page.status).to.equal(200);
      expectDocsHeaders(page.headers, docs);
      const assets = [...(await page.text()).matchAll(/(?:src|href)="([^"]+\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      expect(assets).to.have.length(5);
      for (const asset of assets) {
        const answer = await fetch(`${origin}${asset}`);
        await answer.arrayBuffer();
        expect(answer.status, asset).to.equal(200);
        expectDocsHeaders(answer.headers, asset);
      }
      const missing = await fetch(`${origin}${docs}/assets/index.html`);
      expect(missing.status).to.equal(404);
      expectDocsHeaders(missing.headers, 'a missing asset');
    });
  }
});
