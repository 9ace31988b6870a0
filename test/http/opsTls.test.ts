import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { startChronicle, type Chronicle } from '../../src/startup/startChronicle.js';
import { assertMatchesOpenApi } from '../support/openApi.js';
import { runCli } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/** The committed test-only certificate for localhost / 127.0.0.1 (test/fixtures/tls/README.md). */
const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/tls/', import.meta.url));
const CERT = join(FIXTURES, 'cert.pem');
const KEY = join(FIXTURES, 'key.pem');

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

/** One HTTPS request that trusts only the test certificate. */
const httpsGet = (port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path, headers, ca: readFileSync(CERT), servername: 'localhost' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const fetched = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') fetched.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: fetched, body: JSON.parse(text) });
      });
    });
    req.setTimeout(5000, () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end();
  });

describe('HTTPS (TLS_CERT_FILE, TLS_KEY_FILE)', function () {
  this.timeout(20_000);
  const dir = tempDir('chronicle-tls-');
  let chronicle: Chronicle;
  before(async () => {
    const config = loadConfig({ DATA_DIR: dir.path, PORT: '0', TLS_CERT_FILE: CERT, TLS_KEY_FILE: KEY });
    chronicle = await startChronicle(config, createLogger('silent'));
  });
  after(async () => {
    await chronicle.close();
    dir.dispose();
  });

  it('serves HTTPS with the configured certificate, verified against it as the only CA', async () => {
    const health = await httpsGet(chronicle.port!, '/health');
    expect(health.status).to.equal(200);
    assertMatchesOpenApi({ method: 'GET', path: '/health', ...health });
    const test = await httpsGet(chronicle.port!, '/test', { Authorization: `Bearer ${chronicle.demo!.key}` });
    expect(test.status).to.equal(200);
    assertMatchesOpenApi({ method: 'GET', path: '/test', ...test });
    expect(test.body).to.nested.include({ 'data.companyId': chronicle.demo!.companyId });
  });

  it('does not answer plain HTTP on the HTTPS port', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port: chronicle.port, path: '/health' }, (res) => resolve(`HTTP ${res.statusCode}`));
      req.setTimeout(5000, () => req.destroy(new Error('timeout')));
      req.on('error', (error) => resolve(`error ${error.message}`));
      req.end();
    });
    expect(outcome).to.match(/^error /);
  });

  it('refuses to start on an unreadable or mismatched file: exit code 2 and a line naming the variable, no stack trace', async () => {
    const missing = await runCli(['serve'], { DATA_DIR: dir.path, PORT: '0', TLS_CERT_FILE: join(dir.path, 'nope.pem'), TLS_KEY_FILE: KEY });
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.contain(`TLS_CERT_FILE="${join(dir.path, 'nope.pem')}" cannot be read (ENOENT)`);
    expect(missing.stderr).not.to.match(/\n\s+at /);

    const mismatched = await runCli(['serve'], {
      DATA_DIR: dir.path,
      PORT: '0',
      TLS_CERT_FILE: CERT,
      TLS_KEY_FILE: join(FIXTURES, 'other-key.pem'),
    });
    expect(mismatched.code).to.equal(2);
    expect(mismatched.stderr).to.contain("is not the private key of TLS_CERT_FILE's certificate");
  });
});
