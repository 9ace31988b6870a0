// npm run bench:pair — Chronicle against one other server, in alternating pairs of short
// loads (A B, B A, A B…), and the ratio of their rates with its 95% confidence interval.
// bench:crud's interleaved rounds of 10 s cannot decide a difference of a few percent on a
// machine whose speed drifts by up to half over tens of seconds; two loads run back to back
// see nearly the same machine, so each pair's ratio is steady where the rates are not.
// The other server (`BENCH_PAIR_AGAINST`): one of bench:crud's plain servers (`postgres`, the
// default, on a private cluster started and stopped here; `sqlite`, `sqlite-spec`,
// `postgres-spec`, `map`), or `chronicle:<folder>`, another build of Chronicle (a checkout
// whose `dist` is built), to decide whether a change made a create or a read faster.
// `BENCH_PAIR_ENGINE=postgres` runs Chronicle on PostgreSQL (both builds, each in a database
// of its own on one private cluster) instead of the embedded SQLite default.
// Not a test: it prints figures. Every phase is bounded in time or count.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../test/support/tempStore.js';
import { contactPosting, contactReading, load, stopProcess, type Server } from './support/httpLoad.js';
import { seedContacts, startChronicle } from './support/chronicleServer.js';
import { cpuCounter, processTree } from './support/processCpu.js';
import { startCluster, type BenchCluster } from './support/postgresCluster.js';
import { PLAIN_SERVERS, isPlainServer, startPlainServer } from './support/plainServer.js';
import { aFirst, median, pairedRatio } from './support/pairedRatio.js';

const PAIRS = Number(process.env.BENCH_PAIR_PAIRS ?? 12);
const SECONDS = Number(process.env.BENCH_PAIR_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_PAIR_CONNECTIONS ?? 10);
const ROUTE = process.env.BENCH_PAIR_ROUTE ?? 'create';
const AGAINST = process.env.BENCH_PAIR_AGAINST ?? 'postgres';
const ENGINE = process.env.BENCH_PAIR_ENGINE ?? 'sqlite';
const SEEDED = 1_000;

interface Target {
  readonly name: string;
  readonly server: Server;
  readonly key: string;
  readonly ids: readonly string[];
  /** The processes whose CPU a load costs: the server's tree, and its database's. */
  readonly pids: () => number[];
}

interface Load {
  readonly rps: number;
  /** CPU of the target's processes per request answered, in µs. */
  readonly cpuPerRequest: number;
  readonly errors: number;
}

const loadOnce = async (target: Target, seconds: number): Promise<Load> => {
  const auth = { Authorization: `Bearer ${target.key}` };
  const options = ROUTE === 'read' ? contactReading(target.server.url, auth, target.ids) : contactPosting(target.server.url, auth);
  const cpu = cpuCounter(target.pids);
  const figures = await load({ ...options, connections: CONNECTIONS, duration: seconds });
  return { rps: figures.rps, cpuPerRequest: figures.requests > 0 ? (cpu.used() * 10_000) / figures.requests : 0, errors: figures.errors };
};

const main = async (): Promise<void> => {
  if (ROUTE !== 'create' && ROUTE !== 'read') throw new Error(`BENCH_PAIR_ROUTE is create or read, not ${ROUTE}`);
  if (ENGINE !== 'sqlite' && ENGINE !== 'postgres') throw new Error(`BENCH_PAIR_ENGINE is sqlite or postgres, not ${ENGINE}`);
  if (!(PAIRS >= 4)) throw new Error(`BENCH_PAIR_PAIRS must be at least 4, not ${process.env.BENCH_PAIR_PAIRS}`);
  const other = AGAINST.startsWith('chronicle:') ? resolve(AGAINST.slice('chronicle:'.length)) : null;
  if (other === null && !isPlainServer(AGAINST)) {
    throw new Error(`BENCH_PAIR_AGAINST is one of ${Object.keys(PLAIN_SERVERS).join(', ')} or chronicle:<folder>, not ${AGAINST}`);
  }
  if (other !== null && !existsSync(join(other, 'dist', 'src', 'cli', 'main.js'))) throw new Error(`${other} holds no built Chronicle (dist/src/cli/main.js)`);

  const dir = tempDir('chronicle-pair-');
  const children: ChildProcess[] = [];
  let cluster: BenchCluster | null = null;
  try {
    if (ENGINE === 'postgres' || (other === null && AGAINST.startsWith('postgres'))) cluster = await startCluster();
    const onCluster = cluster;
    const chronicle = async (name: string, folder: string, cli?: string): Promise<Target> => {
      // On PostgreSQL: a database of its own, and the cluster's processes counted with its own.
      const env = onCluster && ENGINE === 'postgres' ? { POSTGRES_URL: await onCluster.createDatabase(`chronicle_${folder}`) } : undefined;
      const started = await startChronicle(join(dir.path, folder), { ...(cli ? { cli } : {}), ...(env ? { env } : {}) });
      children.push(started.server.child);
      const ids = (await seedContacts(started.server.url, started.key, SEEDED)).slice(0, 100);
      const database = env && onCluster ? onCluster.pids : () => [];
      return { name, server: started.server, key: started.key, ids, pids: () => [...processTree(started.server.child.pid!), ...database()] };
    };
    const on = ENGINE === 'postgres' ? ' on PostgreSQL' : '';
    const a = await chronicle(`Chronicle (this build${on})`, 'a');
    let b: Target;
    if (other !== null) {
      b = await chronicle(`Chronicle (${other}${on})`, 'b', join(other, 'bin', 'chronicle.js'));
    } else {
      const kind = AGAINST as keyof typeof PLAIN_SERVERS;
      const key = `pair_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
      const server = await startPlainServer(kind, { key, dir: dir.path, ...(cluster ? { postgresUrl: cluster.url } : {}) });
      children.push(server.child);
      const ids = (await seedContacts(server.url, key, SEEDED)).slice(0, 100);
      // The cluster's processes are this server's only when it keeps its contacts there.
      const database = cluster && kind.startsWith('postgres') ? cluster.pids : () => [];
      b = { name: PLAIN_SERVERS[kind], server, key, ids, pids: () => [...processTree(server.child.pid!), ...database()] };
    }

    const what = ROUTE === 'read' ? 'GET /contacts/:id' : 'POST /contacts';
    console.log(`bench:pair: ${a.name} against ${b.name}, ${what} at ${CONNECTIONS} connections, ${PAIRS} pairs of ${SECONDS}-s loads`);
    // Warm-up: each server's JIT and caches, and the page cache of their files.
    await loadOnce(a, 3);
    await loadOnce(b, 3);
    const pairs: { a: Load; b: Load }[] = [];
    for (let index = 0; index < PAIRS; index++) {
      const order = aFirst(index) ? [a, b] : [b, a];
      const [first, second] = [await loadOnce(order[0]!, SECONDS), await loadOnce(order[1]!, SECONDS)];
      const pair = aFirst(index) ? { a: first, b: second } : { a: second, b: first };
      pairs.push(pair);
      const errors = pair.a.errors + pair.b.errors > 0 ? `  (${pair.a.errors} and ${pair.b.errors} non-2xx/errors!)` : '';
      console.log(
        `pair ${String(index + 1).padStart(2)} ${aFirst(index) ? 'A B' : 'B A'}  ${String(pair.a.rps).padStart(6)} against ${String(pair.b.rps).padStart(6)} req/s  ` +
          `ratio ${(pair.a.rps / pair.b.rps).toFixed(3)}  CPU ${pair.a.cpuPerRequest.toFixed(0)} against ${pair.b.cpuPerRequest.toFixed(0)} µs a request${errors}`,
      );
    }
    const rates = pairedRatio(pairs.map((p) => ({ a: p.a.rps, b: p.b.rps })));
    const cpu = pairedRatio(pairs.map((p) => ({ a: p.a.cpuPerRequest, b: p.b.cpuPerRequest })));
    const round = (n: number) => Math.round(n).toLocaleString('en');
    console.log(
      `\n${a.name} / ${b.name}, ${what} at ${CONNECTIONS} connections, ${rates.pairs} pairs of ${SECONDS} s:\n` +
        `| | ratio (geometric mean) | 95% interval | median ratio | A ahead | medians (A, B) |\n|---|---:|---:|---:|---:|---:|\n` +
        `| requests a second | ${rates.ratio.toFixed(3)} | ${rates.low.toFixed(3)}–${rates.high.toFixed(3)} | ${rates.median.toFixed(3)} | ${rates.aAhead} of ${rates.pairs} | ` +
        `${round(median(pairs.map((p) => p.a.rps)))}, ${round(median(pairs.map((p) => p.b.rps)))} |\n` +
        `| CPU a request | ${cpu.ratio.toFixed(3)} | ${cpu.low.toFixed(3)}–${cpu.high.toFixed(3)} | ${cpu.median.toFixed(3)} | (higher: ${cpu.aAhead} of ${cpu.pairs}) | ` +
        `${round(median(pairs.map((p) => p.a.cpuPerRequest)))} µs, ${round(median(pairs.map((p) => p.b.cpuPerRequest)))} µs |`,
    );
  } finally {
    await Promise.all(children.map(stopProcess));
    cluster?.stop();
    dir.dispose();
  }
};

await main();
