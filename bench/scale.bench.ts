// npm run bench:scale — the embedded mode at scale: a log of about 1,000,000 events, then
// - SQLite read models, one process (`npm start`): first start (read models built) and a restart,
//   each to /ready with resident memory; GET by id, a filtered list, searches and POST /contacts at
//   10 connections, and POST /contacts again at 50 (against bare Koa's POST at 50);
// - the same folder with API_WORKERS=2 (two API workers and a projector/dispatcher process, on every
//   core): start to /ready, the resident memory of every process, the same reads;
// - READ_MODELS=memory, one process: start to /ready (the read models rebuilt in memory), resident
//   memory, the same reads;
// - PostgreSQL (when BENCH_POSTGRES_URL or POSTGRES_TEST_URL names a server: a fresh database there,
//   the same log copied in, dropped at the end), one process with POSTGRES_URL: the SQLite phase's
//   figures (first start, restart, memory, the reads, POST /contacts at 10 and at 50 connections);
// - a bare Koa server's GET and POST (and POST at 50 connections), measured in the same run before and after
//   (the mean is the baseline);
// - (budget) bare Koa's GET with 5 to 30 µs of work added per request: what the GET ratio leaves for work;
//   and its POST appending each body durably (group-committed): the least a durable create costs.
// Not a test: it prints figures. Every phase is bounded in time or count.
import type autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import pg from 'pg';
import { SqliteEventStore } from '../src/adapters/sqlite/SqliteEventStore.js';
import { issueApiKey } from '../src/features/apiKeys/application/issueApiKey.js';
import { embeddedDatabaseFile } from '../src/startup/adapters.js';
import { systemClock } from '../src/shared/Clock.js';
import { newId } from '../src/shared/ids.js';
import { SPECIFICATION_PERMISSIONS } from '../src/shared/permissions.js';
import { tempDir } from '../test/support/tempStore.js';
import { COMMON_WORD, seedScaleLog } from './support/seedScaleLog.js';
import { CLI, contactPosting as posting, load, startBareKoa, stopProcess, type Figures } from './support/httpLoad.js';
import { freePort } from '../test/support/freePort.js';
import { freshPostgresDatabase, type FreshDatabase } from '../test/support/postgres.js';
import { copyLogToPostgres } from './support/copyLogToPostgres.js';

/** Six events per contact: 166,667 contacts make the issue's 1,000,000 events. */
const CONTACTS = Number(process.env.BENCH_SCALE_CONTACTS ?? 166_667);
/** Which of the phases to run (all by default): `sqlite`, `postgres`, `workers`, `memory`, `budget`. */
const PHASES = new Set((process.env.BENCH_SCALE_PHASES ?? 'sqlite,postgres,workers,memory,budget').split(',').map((phase) => phase.trim()));
/** The PostgreSQL server of the `postgres` phase (a database of its own is made there), or none: the phase is skipped. */
const POSTGRES_SERVER = process.env.BENCH_POSTGRES_URL || process.env.POSTGRES_TEST_URL || null;
/** Microseconds of work per request the budget phase adds to bare Koa's GET by id. */
const BUDGET_WORK_US = [5, 10, 15, 20, 25, 30];
/** How long a start (a first start builds every read model from the whole log) may take. */
const READY_WITHIN_MS = Number(process.env.BENCH_SCALE_READY_MINUTES ?? 40) * 60_000;
/** POST /contacts is measured again at this many connections (the other loads use 10). */
const BUSIER_CONNECTIONS = 50;

const rssMb = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Math.round(Number(line?.replace(/\D+/g, '') ?? 0) / 1024);
};

/** The process and its descendants (Linux /proc). */
const processTree = (pid: number): number[] => {
  const file = `/proc/${pid}/task/${pid}/children`;
  const children = existsSync(file) ? readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
  return [pid, ...children.flatMap(processTree)];
};

/** Resident memory of every process of the tree, e.g. `412 MB (supervisor 60, 120, 118, 114)`. */
const treeRss = (pid: number): { total: number; each: number[] } => {
  const each = processTree(pid).map(rssMb);
  return { total: each.reduce((a, b) => a + b, 0), each };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Served {
  readonly child: ChildProcess;
  readonly base: string;
  readonly readyMs: number;
}

/** Starts `chronicle serve` on the folder and resolves once /ready answers 200, with the time it took. */
const startServe = async (dataDir: string, env: Record<string, string> = {}): Promise<Served> => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_HOURLY: '100000000',
      RATE_LIMIT_DAILY: '100000000',
      RATE_LIMIT_CONCURRENT: '1000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // Ready once /ready answers and serve says it listens: with API_WORKERS, only once every worker
  // listens (the first one's /ready answers before the others do; the connections opened then
  // would all be handed to it).
  let listening = false;
  let said = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    if (listening) return;
    said = (said + chunk).slice(-4096);
    listening = said.includes('Chronicle is listening on');
  });
  // Bounded: polls every 100 ms until ready or READY_WITHIN_MS.
  while (performance.now() - started < READY_WITHIN_MS) {
    const ready = listening ? await fetch(`${base}/ready`).then((r) => r.status, () => 0) : 0;
    if (ready === 200) return { child, base, readyMs: Math.round(performance.now() - started) };
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`chronicle serve exited with ${child.exitCode ?? child.signalCode}`);
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`not ready within ${READY_WITHIN_MS} ms`);
};

const rotating = (url: string, headers: Record<string, string>, paths: readonly string[]): autocannon.Options => {
  let i = 0;
  return { url, headers, requests: [{ setupRequest: (request) => ({ ...request, path: paths[i++ % paths.length]! }) }] };
};

const line = (name: string, f: Figures) =>
  console.log(`${name.padEnd(52)} ${String(f.rps).padStart(6)} req/s  p50 ${f.p50} ms  p99 ${f.p99} ms${f.errors ? `  (${f.errors} non-2xx/errors!)` : ''}`);

/**
 * Rates compared with bare Koa's at the end: GET by id with its GET, POST /contacts with its POST, and
 * at 50 connections with its POST at 50 connections.
 */
type Baseline = 'get' | 'post' | 'busierPost';
const BASELINE_NAMES: Record<Baseline, string> = { get: 'GET', post: 'POST', busierPost: `POST at ${BUSIER_CONNECTIONS} connections` };
const compared: { name: string; rps: number; against: Baseline }[] = [];
const measured = (name: string, f: Figures, against: Baseline) => {
  line(name, f);
  compared.push({ name: name.trim(), rps: f.rps, against });
};

const SEARCHES = ['/contacts?search=Contact%2012345', '/contacts?search=contact42%40example.org', '/contacts?search=%2B4915100', '/contacts?search=nobody'];
const FILTERED = '/deals?status=won&stage=proposal&page=3';

/** GET by id, the filtered list and the searches against one served folder. */
const reads = async (phase: string, served: Served, headers: Record<string, string>): Promise<void> => {
  // 100 contacts from the 7th hundred (from the first with fewer contacts).
  const hundred = async (page: number) =>
    ((await (await fetch(`${served.base}/contacts?limit=100&page=${page}`, { headers })).json()) as { data: { id: string }[] }).data;
  const found = await hundred(7);
  const ids = (found.length > 0 ? found : await hundred(1)).map((contact) => `/contacts/${contact.id}`);
  if (ids.length === 0) throw new Error('no contact to read');
  measured(`  GET /contacts/:id (${phase})`, await load(rotating(served.base, headers, ids)), 'get');
  line(`  GET ${FILTERED}`, await load(rotating(served.base, headers, [FILTERED])));
  line('  GET /contacts?search= (4 texts in turn)', await load(rotating(served.base, headers, SEARCHES)));
  // A search of one match by name (as a client looks a person up) and by e-mail; the many-match
  // search is compared with the faster of the two.
  const ones = [];
  for (const path of ONE_MATCH) {
    const one = await load(rotating(served.base, headers, [path]));
    line(`  GET ${path} (${await matches(served, headers, path)} match)`, one);
    ones.push(one.rps);
  }
  const many = await load(rotating(served.base, headers, [MANY_MATCHES]));
  line(`  GET ${MANY_MATCHES} (${await matches(served, headers, MANY_MATCHES)} matches)`, many);
  console.log(`  the search of many matches: ${(many.rps / Math.max(...ones)).toFixed(2)}× the throughput of the faster search of one (target ≥ 0.25)`);
  for (const path of [...ONE_MATCH, MANY_MATCHES]) {
    const after = await searchAfterWrites(served, headers, path);
    console.log(`  ${path}, each right after a create (no total kept), one at a time: p50 ${after.p50} ms, p99 ${after.p99} ms`);
  }
};

const ONE_MATCH = ['/contacts?search=Contact%20123456', '/contacts?search=contact42%40example.org'];
const MANY_MATCHES = `/contacts?search=${COMMON_WORD.toLowerCase()}`;
/** Creates, each followed by one search, in `searchAfterWrites`. */
const WRITES_BETWEEN_SEARCHES = 200;

/** The search's meta.total. */
const matches = async (served: Served, headers: Record<string, string>, path: string): Promise<number> =>
  ((await (await fetch(`${served.base}${path}`, { headers })).json()) as { meta: { total: number } }).meta.total;

/**
 * A search's latency when whatever was kept for it is stale: each right after a
 * create (read-your-writes: the read models hold it when the 201 comes), one at a
 * time, WRITES_BETWEEN_SEARCHES times.
 */
let afterWritePhone = 0;
const searchAfterWrites = async (served: Served, headers: Record<string, string>, path: string): Promise<{ p50: number; p99: number }> => {
  const took: number[] = [];
  for (let i = 0; i < WRITES_BETWEEN_SEARCHES; i++) {
    const n = afterWritePhone++;
    const created = await fetch(`${served.base}/contacts`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `Between ${n}`, phoneNumber: `+1888${String(n).padStart(8, '0')}` }),
    });
    if (created.status !== 201) throw new Error(`create failed: ${created.status}`);
    const at = performance.now();
    const found = await fetch(`${served.base}${path}`, { headers });
    if (found.status !== 200) throw new Error(`search failed: ${found.status}`);
    await found.arrayBuffer();
    took.push(performance.now() - at);
  }
  took.sort((a, b) => a - b);
  const at = (q: number) => Math.round(took[Math.min(took.length - 1, Math.floor(q * took.length))]! * 10) / 10;
  return { p50: at(0.5), p99: at(0.99) };
};

/** Bare Koa's GET and POST (the same client, the same connections). */
const bareFigures = async (): Promise<{ get: Figures; post: Figures; busierPost: Figures }> => {
  const bare = await startBareKoa();
  try {
    return {
      get: await load(rotating(bare.url, {}, ['/contacts/1'])),
      post: await load(posting(bare.url, {})),
      busierPost: await load({ ...posting(bare.url, {}), connections: BUSIER_CONNECTIONS }),
    };
  } finally {
    await stopProcess(bare.child);
  }
};

/**
 * Bare Koa's GET by id with a fixed amount of CPU work added per request, as a
 * ratio to the baseline: what the ratio target leaves for everything a server does
 * beyond answering (the curve is not linear: a slower server also pays more per
 * response, waking a load generator that waits for it). Chronicle's GET by id is
 * then placed on that curve: bare Koa plus about so many µs.
 */
const budget = async (baseline: number): Promise<void> => {
  const curve: { workUs: number; ratio: number }[] = [{ workUs: 0, ratio: 1 }];
  for (const workUs of BUDGET_WORK_US) {
    const bare = await startBareKoa({ workUs });
    try {
      const f = await load(rotating(bare.url, {}, ['/contacts/1']));
      curve.push({ workUs, ratio: f.rps / baseline });
      console.log(`  bare Koa GET + ${String(workUs).padStart(2)} µs of work a request: ${String(f.rps).padStart(6)} req/s, ${(f.rps / baseline).toFixed(2)}× bare Koa`);
    } finally {
      await stopProcess(bare.child);
    }
  }
  /** Work (µs, interpolated on the curve) at which bare Koa answers at `ratio`; null beyond the curve. */
  const workAt = (ratio: number): number | null => {
    for (let i = 1; i < curve.length; i++) {
      const [a, b] = [curve[i - 1]!, curve[i]!];
      if (ratio <= a.ratio && ratio >= b.ratio) return a.workUs + ((a.ratio - ratio) / (a.ratio - b.ratio || 1)) * (b.workUs - a.workUs);
    }
    return null;
  };
  const at = (ratio: number) => {
    const us = workAt(ratio);
    return us === null ? `beyond ${BUDGET_WORK_US[BUDGET_WORK_US.length - 1]} µs` : `about ${us.toFixed(1)} µs`;
  };
  console.log(`  the 0.5× target: bare Koa plus ${at(0.5)} of work a request`);
  for (const { name, rps, against } of compared) {
    if (against === 'get') console.log(`  ${name}: ${(rps / baseline).toFixed(2)}×, like bare Koa plus ${at(rps / baseline)}`);
  }
};

/**
 * Bare Koa's POST /contacts appending each body to a SQLite file (WAL,
 * `synchronous=FULL`), group-committed per turn of the event loop before it
 * answers: the least a durable create costs on this machine's disk, against
 * bare Koa's POST.
 */
const durableBudget = async (baseline: number, dir: string): Promise<void> => {
  const bare = await startBareKoa({ durableFile: join(dir, 'bare-koa-durable.sqlite') });
  try {
    const f = await load(posting(bare.url, {}));
    console.log(`  bare Koa POST appending each body durably (one fsync per turn): ${f.rps} req/s, p99 ${f.p99} ms, ${(f.rps / baseline).toFixed(2)}× bare Koa POST`);
    for (const { name, rps, against } of compared) {
      if (against === 'post') console.log(`  ${name}: ${(rps / f.rps).toFixed(2)}× that durable append alone`);
    }
  } finally {
    await stopProcess(bare.child);
  }
};

/**
 * The SQLite phase's figures with every store in PostgreSQL (POSTGRES_URL), on a
 * copy of the same log: the first start builds the read models there from the whole
 * log, the restart resumes from their checkpoint.
 */
const postgresPhase = async (database: FreshDatabase, headers: Record<string, string>): Promise<void> => {
  const dataDir = tempDir('chronicle-scale-pg-');
  const env = { POSTGRES_URL: database.url };
  try {
    const first = await startServe(dataDir.path, env);
    console.log(`PostgreSQL, first start (read models built from the log) to /ready: ${(first.readyMs / 1000).toFixed(1)} s, RSS ${rssMb(first.child.pid!)} MB`);
    await stopProcess(first.child);
    const again = await startServe(dataDir.path, env);
    console.log(`PostgreSQL, restart to /ready: ${(again.readyMs / 1000).toFixed(2)} s, RSS ${rssMb(again.child.pid!)} MB`);
    await reads('PostgreSQL', again, headers);
    console.log(`  RSS after the reads: ${rssMb(again.child.pid!)} MB`);
    measured('  POST /contacts (PostgreSQL; durable, read-your-writes)', await load(posting(again.base, headers)), 'post');
    measured(
      `  POST /contacts at ${BUSIER_CONNECTIONS} connections (PostgreSQL)`,
      await load({ ...posting(again.base, headers), connections: BUSIER_CONNECTIONS }),
      'busierPost',
    );
    await stopProcess(again.child);
    const size = await fetchDatabaseSize(database.url);
    console.log(`  PostgreSQL database: ${Math.round(size / 1e6)} MB`);
  } finally {
    dataDir.dispose();
  }
};

const fetchDatabaseSize = async (url: string): Promise<number> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n')).rows[0]!.n);
  } finally {
    await client.end();
  }
};

const main = async (): Promise<void> => {
  const dir = tempDir('chronicle-scale-');
  let database: FreshDatabase | null = null;
  try {
    console.log(`scale benchmark: seeding ${CONTACTS} contacts (6 events each) into a fresh log…`);
    const seededAt = performance.now();
    const { events, companyId } = seedScaleLog(embeddedDatabaseFile(dir.path), CONTACTS);
    const store = SqliteEventStore.open(embeddedDatabaseFile(dir.path));
    const issued = await issueApiKey(
      { eventStore: store, newId, clock: systemClock },
      { companyId, type: 'generic', permissions: SPECIFICATION_PERMISSIONS, expiresAt: null, metadata: { source: 'cli', correlationId: newId() } },
    );
    await store.close();
    if (E.isLeft(issued)) throw new Error('no key');
    const headers = { Authorization: `Bearer ${issued.right.key}` };
    console.log(`seeded ${events} events in ${((performance.now() - seededAt) / 1000).toFixed(1)} s`);
    if (PHASES.has('postgres')) {
      if (POSTGRES_SERVER === null) console.log('PostgreSQL phase skipped: neither BENCH_POSTGRES_URL nor POSTGRES_TEST_URL is set');
      else {
        database = await freshPostgresDatabase(POSTGRES_SERVER);
        const copiedAt = performance.now();
        const copied = await copyLogToPostgres(embeddedDatabaseFile(dir.path), database.url);
        console.log(`copied the same ${copied} events into a fresh PostgreSQL database in ${((performance.now() - copiedAt) / 1000).toFixed(1)} s`);
      }
    }

    const before = await bareFigures();
    console.log(
      `bare Koa (before): GET ${before.get.rps} req/s, POST ${before.post.rps} req/s, ` +
        `POST at ${BUSIER_CONNECTIONS} connections ${before.busierPost.rps} req/s`,
    );
    const after = { ...before };
    const mean = (pick: (figures: typeof before) => Figures) => (pick(before).rps + pick(after).rps) / 2;
    const baseline = () => ({ get: mean((f) => f.get), post: mean((f) => f.post), busierPost: mean((f) => f.busierPost) });

    if (PHASES.has('sqlite') || PHASES.has('workers')) {
      const first = await startServe(dir.path);
      console.log(`SQLite read models, first start (built from the log) to /ready: ${(first.readyMs / 1000).toFixed(1)} s, RSS ${rssMb(first.child.pid!)} MB`);
      await stopProcess(first.child);
    }
    if (PHASES.has('sqlite')) {
      const again = await startServe(dir.path);
      console.log(`SQLite read models, restart to /ready: ${(again.readyMs / 1000).toFixed(2)} s, RSS ${rssMb(again.child.pid!)} MB`);
      await reads('SQLite', again, headers);
      console.log(`  RSS after the reads: ${rssMb(again.child.pid!)} MB`);
      measured('  POST /contacts (SQLite; durable, read-your-writes)', await load(posting(again.base, headers)), 'post');
      // More clients at once share larger group commits: what one node takes when busier, against bare
      // Koa's POST at as many connections (the targets stay at 10).
      measured(
        `  POST /contacts at ${BUSIER_CONNECTIONS} connections (SQLite)`,
        await load({ ...posting(again.base, headers), connections: BUSIER_CONNECTIONS }),
        'busierPost',
      );
      await stopProcess(again.child);
    }
    if (database !== null) await postgresPhase(database, headers);
    if (PHASES.has('workers')) {
      const workers = await startServe(dir.path, { API_WORKERS: '2' });
      const atReady = treeRss(workers.child.pid!);
      console.log(
        `SQLite read models, API_WORKERS=2, start to /ready: ${(workers.readyMs / 1000).toFixed(2)} s, ` +
          `RSS ${atReady.total} MB in ${atReady.each.length} processes (${atReady.each.join(', ')} MB)`,
      );
      await reads('API_WORKERS=2', workers, headers);
      const afterReads = treeRss(workers.child.pid!);
      console.log(`  RSS after the reads: ${afterReads.total} MB (${afterReads.each.join(', ')} MB)`);
      measured('  POST /contacts (API_WORKERS=2; durable, read-your-writes)', await load(posting(workers.base, headers)), 'post');
      await stopProcess(workers.child);
    }
    if (PHASES.has('memory')) {
      const memory = await startServe(dir.path, { READ_MODELS: 'memory' });
      console.log(`memory read models (READ_MODELS=memory), start to /ready (built in memory from the log): ${(memory.readyMs / 1000).toFixed(1)} s, RSS ${rssMb(memory.child.pid!)} MB`);
      await reads('memory', memory, headers);
      console.log(`  RSS after the reads: ${rssMb(memory.child.pid!)} MB`);
      await stopProcess(memory.child);
    }

    Object.assign(after, await bareFigures());
    const means = baseline();
    const { get, post, busierPost } = means;
    console.log(
      `bare Koa (after): GET ${after.get.rps} req/s, POST ${after.post.rps} req/s, ` +
        `POST at ${BUSIER_CONNECTIONS} connections ${after.busierPost.rps} req/s; baseline, the mean of before and after: ` +
        `GET ${Math.round(get)} req/s, POST ${Math.round(post)} req/s, POST at ${BUSIER_CONNECTIONS} connections ${Math.round(busierPost)} req/s`,
    );
    for (const { name, rps, against } of compared) {
      console.log(`${name.padEnd(52)} ${(rps / means[against]).toFixed(2)}× bare Koa ${BASELINE_NAMES[against]}`);
    }
    if (PHASES.has('budget')) {
      console.log('work budget: bare Koa GET by id with work added per request, against the baseline');
      await budget(get);
      await durableBudget(post, dir.path);
    }
    console.log(
      'targets: restart to /ready ≤ 3 s; RSS after restart ≤ 400 MB; search and filtered list p99 ≤ 50 ms; ' +
        'GET by id ≥ 0.5× bare Koa GET; POST /contacts ≥ 0.2× bare Koa POST',
    );
  } finally {
    await database?.drop();
    dir.dispose();
  }
};

await main();
