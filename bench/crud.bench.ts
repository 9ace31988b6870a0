// npm run bench:crud — Chronicle against the plain CRUD servers a team would write instead
// (bench/crudServer.ts), in one run, each in its own child process: a bare Koa server holding
// contacts in a Map (the baseline every share is of), a plain SQLite server, a plain PostgreSQL
// server (on a private cluster this benchmark starts with scripts/postgres-test-cluster.sh and
// stops at the end), Chronicle as `npm start` runs it (`chronicle serve`, embedded storage in
// a temporary folder, request logs at `info` into a file, rate limits raised so that none
// answers 429), and the same on PostgreSQL (`POSTGRES_URL`: a database of its own in that
// cluster); on request (`chronicle-memory`), Chronicle with its read models in memory.
// GET /contacts/:id (100 ids in turn) and POST /contacts at 10 connections, POST again at 50,
// then both at once (10 connections reading and 10 creating, one company: a mixed load);
// ROUNDS interleaved rounds, the median of each; the CPU each server's process tree
// used while it was loaded, and per request answered.
// Not a test: it prints figures. Every phase is bounded in time or count.
import type autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../test/support/tempStore.js';
import { SECONDS, contactPosting, contactReading, load, stopProcess, type Figures, type Server } from './support/httpLoad.js';
import { PLAIN_SERVERS, startPlainServer, type PlainServer } from './support/plainServer.js';
import { seedContacts, startChronicle } from './support/chronicleServer.js';
import { cpuCounter, machineTicks, processTree } from './support/processCpu.js';
import { startCluster, type BenchCluster } from './support/postgresCluster.js';
import { median } from './support/pairedRatio.js';

const ROUNDS = Number(process.env.BENCH_CRUD_ROUNDS ?? 3);
/** Which servers to run (all by default): `map` is the baseline and always runs. */
const SERVERS = new Set((process.env.BENCH_CRUD_SERVERS ?? 'sqlite,sqlite-spec,postgres,postgres-spec,chronicle,chronicle-postgres').split(',').map((name) => name.trim()));
const BUSIER_CONNECTIONS = 50;
/** Contacts created in each server before the reads (GET /contacts/:id asks for 100 of them in turn). */
const SEEDED = 1_000;
const CASES = ['get', 'post', 'busierPost', 'mixed'] as const;
type Case = (typeof CASES)[number];
const CASE_NAMES: Record<Case, string> = {
  get: 'GET /contacts/:id',
  post: 'POST /contacts',
  busierPost: `POST at ${BUSIER_CONNECTIONS} connections`,
  mixed: 'GET and POST at once',
};

interface Loaded {
  readonly name: string;
  readonly server: Server;
  readonly key: string;
  readonly ids: string[];
}

interface Measured {
  readonly figures: Figures;
  /** CPU of the server's process tree (and the database's), in % of one core. */
  readonly cpu: number;
  /**
   * The same CPU per answered request, in µs: what a request costs the server, which moves
   * less with the machine's speed from one round to the next than the rate does.
   */
  readonly cpuPerRequest: number;
  /** The machine's busy share, in % of all its cores. */
  readonly machine: number;
  /** The mixed load's two halves (`figures` is their sum, with the reads' latencies). */
  readonly mixed?: { readonly reads: Figures; readonly creates: Figures };
}

/** GET /contacts/:id at 10 connections and POST /contacts at 10 more, at once: the sum, with the reads' latencies. */
const mixedLoad = async (reads: autocannon.Options, creates: autocannon.Options): Promise<{ reads: Figures; creates: Figures; figures: Figures }> => {
  const [read, created] = await Promise.all([load(reads), load(creates)]);
  return {
    reads: read,
    creates: created,
    figures: { rps: read.rps + created.rps, requests: read.requests + created.requests, p50: read.p50, p99: read.p99, errors: read.errors + created.errors },
  };
};

const measure = async (target: Loaded, pids: () => number[], which: Case): Promise<Measured> => {
  const auth = { Authorization: `Bearer ${target.key}` };
  const reading = contactReading(target.server.url, auth, target.ids);
  const creating = contactPosting(target.server.url, auth);
  const cpu = cpuCounter(pids);
  const [machineBefore, at] = [machineTicks(), performance.now()];
  const mixed = which === 'mixed' ? await mixedLoad(reading, creating) : undefined;
  const figures =
    mixed?.figures ??
    (await load(which === 'get' ? reading : { ...creating, ...(which === 'busierPost' ? { connections: BUSIER_CONNECTIONS } : {}) }));
  const seconds = (performance.now() - at) / 1000;
  const machineAfter = machineTicks();
  const used = cpu.used();
  return {
    figures,
    cpu: used / seconds,
    cpuPerRequest: figures.requests > 0 ? (used * 10_000) / figures.requests : 0,
    machine: (100 * (machineAfter.busy - machineBefore.busy)) / (machineAfter.total - machineBefore.total),
    ...(mixed ? { mixed: { reads: mixed.reads, creates: mixed.creates } } : {}),
  };
};

const main = async (): Promise<void> => {
  const dir = tempDir('chronicle-crud-');
  const children: ChildProcess[] = [];
  let cluster: BenchCluster | null = null;
  try {
    const key = `crud_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
    const plain = async (kind: PlainServer): Promise<Loaded> => {
      const server = await startPlainServer(kind, { key, dir: dir.path, ...(cluster ? { postgresUrl: cluster.url } : {}) });
      children.push(server.child);
      return { name: PLAIN_SERVERS[kind], server, key, ids: (await seedContacts(server.url, key, SEEDED)).slice(0, 100) };
    };
    const targets: { loaded: Loaded; pids: () => number[] }[] = [];
    const add = (loaded: Loaded, extra: () => number[] = () => []) =>
      targets.push({ loaded, pids: () => [...processTree(loaded.server.child.pid!), ...extra()] });
    add(await plain('map'));
    if (SERVERS.has('sqlite')) add(await plain('sqlite'));
    if (SERVERS.has('sqlite-spec')) add(await plain('sqlite-spec'));
    if (SERVERS.has('postgres') || SERVERS.has('chronicle-postgres')) cluster = await startCluster();
    if (cluster && SERVERS.has('postgres')) {
      add(await plain('postgres'), cluster.pids);
      if (SERVERS.has('postgres-spec')) add(await plain('postgres-spec'), cluster.pids);
    }
    if (SERVERS.has('chronicle')) {
      const chronicle = await startChronicle(join(dir.path, 'chronicle'));
      children.push(chronicle.server.child);
      add({ name: 'Chronicle (npm start)', server: chronicle.server, key: chronicle.key, ids: (await seedContacts(chronicle.server.url, chronicle.key, SEEDED)).slice(0, 100) });
    }
    if (SERVERS.has('chronicle-memory')) {
      // Not in the default list: the same server with its read models in memory (rebuilt from the
      // log at each start), to show what the SQLite read models cost a request.
      const chronicle = await startChronicle(join(dir.path, 'chronicle-memory'), { env: { READ_MODELS: 'memory' } });
      children.push(chronicle.server.child);
      add({ name: 'Chronicle, read models in memory', server: chronicle.server, key: chronicle.key, ids: (await seedContacts(chronicle.server.url, chronicle.key, SEEDED)).slice(0, 100) });
    }
    if (cluster && SERVERS.has('chronicle-postgres')) {
      const chronicle = await startChronicle(join(dir.path, 'chronicle-postgres'), { env: { POSTGRES_URL: cluster.chronicleUrl } });
      children.push(chronicle.server.child);
      const loaded = { name: 'Chronicle on PostgreSQL', server: chronicle.server, key: chronicle.key, ids: (await seedContacts(chronicle.server.url, chronicle.key, SEEDED)).slice(0, 100) };
      add(loaded, cluster.pids);
    }

    console.log(
      `CRUD benchmark: ${ROUNDS} interleaved rounds of ${SECONDS} s per case; 10 connections, POST also at ${BUSIER_CONNECTIONS}, ` +
        'then GET and POST at 10 each at once',
    );
    const results = new Map<string, Record<Case, Measured[]>>(targets.map((t) => [t.loaded.name, { get: [], post: [], busierPost: [], mixed: [] }]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const which of CASES) {
        for (const { loaded, pids } of targets) {
          const m = await measure(loaded, pids, which);
          results.get(loaded.name)![which].push(m);
          const errors = m.figures.errors ? `  (${m.figures.errors} non-2xx/errors!)` : '';
          const halves = m.mixed ? `  (${m.mixed.reads.rps} reads, ${m.mixed.creates.rps} creates, POST p99 ${m.mixed.creates.p99} ms)` : '';
          console.log(
            `round ${round} ${CASE_NAMES[which].padEnd(24)} ${loaded.name.padEnd(30)} ${String(m.figures.rps).padStart(6)} req/s  ` +
              `p50 ${m.figures.p50} ms  p99 ${m.figures.p99} ms  server CPU ${m.cpu.toFixed(0)}% (${m.cpuPerRequest.toFixed(0)} µs a request)  machine ${m.machine.toFixed(0)}%${halves}${errors}`,
          );
        }
      }
    }

    const baseline = results.get(targets[0]!.loaded.name)!;
    console.log(`\nmedians of ${ROUNDS} rounds, and the share of bare Koa's (its median):`);
    console.log(`| server | ${CASES.map((c) => CASE_NAMES[c]).join(' | ')} |`);
    console.log(`|---|${CASES.map(() => '---:').join('|')}|`);
    for (const [name, byCase] of results) {
      const cells = CASES.map((which) => {
        const rps = median(byCase[which].map((m) => m.figures.rps));
        const share = rps / median(baseline[which].map((m) => m.figures.rps));
        const cpu = median(byCase[which].map((m) => m.cpu));
        const perRequest = median(byCase[which].map((m) => m.cpuPerRequest));
        const p99 = median(byCase[which].map((m) => m.figures.p99));
        const of = (half: 'reads' | 'creates', figure: 'rps' | 'p99') => median(byCase[which].map((m) => m.mixed![half][figure]));
        const halves =
          which === 'mixed'
            ? `: ${of('reads', 'rps').toLocaleString('en')} reads and ${of('creates', 'rps').toLocaleString('en')} creates, GET p99 ${p99} ms, POST p99 ${of('creates', 'p99')} ms`
            : `, p99 ${p99} ms`;
        return `${share.toFixed(2)} (${rps.toLocaleString('en')} req/s${halves}, CPU ${cpu.toFixed(0)}%, ${perRequest.toFixed(0)} µs a request)`;
      });
      console.log(`| ${name} | ${cells.join(' | ')} |`);
    }
    const loadAverage = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(`load average at the end: ${loadAverage}`);
  } finally {
    await Promise.all(children.map(stopProcess));
    cluster?.stop();
    dir.dispose();
  }
};

await main();
