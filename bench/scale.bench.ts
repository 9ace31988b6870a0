// npm run bench:scale — the embedded mode at scale: a log of about 1,000,000 events, a first start
// (read models built) and a restart, each to /ready, resident memory, and the read latencies at
// 10 connections beside a bare Koa server measured in the same run. Not a test: it prints figures.
// Every phase is bounded in time or count.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import * as E from 'fp-ts/lib/Either.js';
import { SqliteEventStore } from '../src/adapters/sqlite/SqliteEventStore.js';
import { issueApiKey } from '../src/application/apiKeys/issueApiKey.js';
import { embeddedDatabaseFile } from '../src/main.js';
import { systemClock } from '../src/shared/Clock.js';
import { newId } from '../src/shared/ids.js';
import { ALL_PERMISSIONS } from '../src/shared/permissions.js';
import { tempDir } from '../test/support/tempStore.js';
import { seedScaleLog } from './support/seedScaleLog.js';

/** Six events per contact: 166,667 contacts make the issue's 1,000,000 events. */
const CONTACTS = Number(process.env.BENCH_SCALE_CONTACTS ?? 166_667);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 10;
const READY_WITHIN_MS = 20 * 60_000;
const CLI = fileURLToPath(new URL('../../bin/chronicle.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bareKoa.js', import.meta.url));

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const rssMb = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line?.replace(/\D+/g, '') ?? 0) / 1024);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `chronicle serve` on the folder and resolves once /ready answers 200: the time it took, and its RSS then. */
const startServe = async (dataDir: string): Promise<{ child: ChildProcess; base: string; readyMs: number; rss: number }> => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_HOURLY: '100000000', RATE_LIMIT_DAILY: '100000000', RATE_LIMIT_CONCURRENT: '1000' },
    stdio: 'ignore',
  });
  // Bounded: polls every 100 ms until ready or READY_WITHIN_MS.
  while (performance.now() - started < READY_WITHIN_MS) {
    const ready = await fetch(`${base}/ready`).then((r) => r.status, () => 0);
    if (ready === 200) return { child, base, readyMs: Math.round(performance.now() - started), rss: rssMb(child.pid!) };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`not ready within ${READY_WITHIN_MS} ms`);
};

const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

const load = async (url: string, headers: Record<string, string>, paths: readonly string[]) => {
  let i = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers,
    requests: [{ setupRequest: (request) => ({ ...request, path: paths[i++ % paths.length]! }) }],
  });
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.non2xx + result.errors + result.timeouts };
};

const line = (name: string, f: { rps: number; p50: number; p99: number; errors: number }) =>
  console.log(`${name.padEnd(46)} ${String(f.rps).padStart(6)} req/s  p50 ${f.p50} ms  p99 ${f.p99} ms${f.errors ? `  (${f.errors} non-2xx/errors!)` : ''}`);

const main = async (): Promise<void> => {
  const dir = tempDir('chronicle-scale-');
  try {
    console.log(`scale benchmark: seeding ${CONTACTS} contacts (6 events each) into a fresh log…`);
    const seededAt = performance.now();
    const { events, companyId } = seedScaleLog(embeddedDatabaseFile(dir.path), CONTACTS);
    const store = SqliteEventStore.open(embeddedDatabaseFile(dir.path));
    const issued = await issueApiKey(
      { eventStore: store, newId, clock: systemClock },
      { companyId, type: 'generic', permissions: ALL_PERMISSIONS, expiresAt: null, metadata: { source: 'cli', correlationId: newId() } },
    );
    await store.close();
    if (E.isLeft(issued)) throw new Error('no key');
    const headers = { Authorization: `Bearer ${issued.right.key}` };
    console.log(`seeded ${events} events in ${((performance.now() - seededAt) / 1000).toFixed(1)} s`);

    const first = await startServe(dir.path);
    console.log(`first start (read models built from the log) to /ready: ${(first.readyMs / 1000).toFixed(1)} s, RSS ${first.rss} MB`);
    await stop(first.child);
    const again = await startServe(dir.path);
    console.log(`restart to /ready: ${(again.readyMs / 1000).toFixed(2)} s, RSS ${again.rss} MB`);

    const page = (await (await fetch(`${again.base}/contacts?limit=100&page=7`, { headers })).json()) as { data: { id: string }[] };
    const ids = page.data.map((contact) => `/contacts/${contact.id}`);
    line('GET /contacts/:id', await load(again.base, headers, ids));
    line('GET /deals?status=won&stage=proposal&page=3', await load(again.base, headers, ['/deals?status=won&stage=proposal&page=3']));
    line('GET /contacts?search= (4 texts)', await load(again.base, headers, ['/contacts?search=Contact%2012345', '/contacts?search=contact42%40example.org', '/contacts?search=%2B4915100', '/contacts?search=nobody']));
    console.log(`RSS after the load: ${rssMb(again.child.pid!)} MB`);
    await stop(again.child);

    const bare = spawn(process.execPath, [BARE], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
    const bareUrl = await new Promise<string>((resolve, reject) => {
      let output = '';
      bare.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (https?:\/\/[^\s]+)/.exec(output);
        if (match) resolve(match[1]!.replace('localhost', '127.0.0.1'));
      });
      bare.once('exit', (code) => reject(new Error(`bare Koa exited with ${code}`)));
    });
    line('bare Koa GET (same run, baseline)', await load(bareUrl, {}, ['/contacts/1']));
    await stop(bare);
    console.log('targets: restart to /ready ≤ 3 s; RSS after restart ≤ 400 MB; search and filtered list p99 ≤ 50 ms; GET by id ≥ 0.5× bare Koa');
  } finally {
    dir.dispose();
  }
};

await main();
