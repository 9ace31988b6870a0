'use strict';

const { spawn, execFile } = require('node:child_process');
const { existsSync, mkdtempSync, rmSync } = require('node:fs');
const http = require('node:http');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..', '..', '..');
const BIN = join(ROOT, 'bin', 'chronicle.js');

/** Polls `check` every 50 ms until it returns something truthy, at most `timeoutMs`. */
const waitFor = async (check, timeoutMs, what) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/**
 * A real Chronicle: the root package's built server (`chronicle serve`), embedded
 * storage in a temporary folder, on 127.0.0.1 with a free port, private webhook
 * targets allowed (the receiver is local) and short retry delays.
 */
const startChronicle = async () => {
  if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) throw new Error('run `npm run build` at the repository root first');
  const dataDir = mkdtempSync(join(tmpdir(), 'chronicle-zapier-'));
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_DELAYS_MS: '200,200,200',
    BASE_PATH: '',
  };
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const started = await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`chronicle serve exited with ${child.exitCode}:\n${stderr}`);
      const port = /listening on http:\/\/localhost:(\d+)/.exec(stderr);
      const key = /API key (chr_\S+)/.exec(stderr);
      const company = /company .* \(([0-9a-f-]{36})\)/.exec(stderr);
      return port && key && company ? { port: Number(port[1]), demoKey: key[1], companyId: company[1] } : null;
    },
    30_000,
    'chronicle serve to listen',
  );

  /** Runs a CLI command on the same DATA_DIR (it works while the server runs) and parses its --json output. */
  const cli = (...args) =>
    new Promise((resolve, reject) => {
      execFile(process.execPath, [BIN, ...args, '--json'], { env, timeout: 30_000 }, (error, stdout, stderrText) => {
        if (error) reject(new Error(`chronicle ${args.join(' ')}: ${stderrText || error.message}`));
        else resolve(JSON.parse(stdout));
      });
    });

  const baseUrl = `http://127.0.0.1:${started.port}`;
  const ALL = 'contacts:read,contacts:write,deals:read,deals:write,webhooks:read,webhooks:write';
  /** A key of type `zapier`, as an integrator would make one. */
  const zapierKey = async (companyId = started.companyId) => {
    const { key } = await cli('keys', 'create', '--company', companyId, '--type', 'zapier', '--permissions', ALL);
    // The server follows the log the CLI appended to (within 50 ms): wait until it knows the key.
    await waitFor(
      async () => (await fetch(`${baseUrl}/test`, { headers: { Authorization: `Bearer ${key}` } })).status === 200,
      10_000,
      'the server to accept the new key',
    );
    return key;
  };

  /** A key that may only erase contacts (`contacts:erase` is never part of "all"). */
  const eraserKey = async (companyId = started.companyId) => {
    const { key } = await cli('keys', 'create', '--company', companyId, '--permissions', 'contacts:erase');
    await waitFor(
      async () => (await fetch(`${baseUrl}/test`, { headers: { Authorization: `Bearer ${key}` } })).status === 200,
      10_000,
      'the server to accept the new key',
    );
    return key;
  };

  return {
    ...started,
    baseUrl,
    cli,
    zapierKey,
    eraserKey,
    /** A plain JSON request with a key (for what the integration has no action for). */
    async request(method, path, key, body) {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
    },
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

/** Stands in for Zapier's hook URLs: keeps every delivery (raw body and headers) and answers 200. */
const startReceiver = async () => {
  const deliveries = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      deliveries.push({ path: req.url, headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(200).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    deliveries,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
};

module.exports = { startChronicle, startReceiver, waitFor };
