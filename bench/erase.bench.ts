// npm run bench:erase — erasing a person in a log of about 1,000,000 events (embedded storage): the log
// an earlier release wrote (seedScaleLog: values in the clear), then
// - the migration a first start makes: the phone numbers' reservation streams renamed to keyed hashes,
//   and every stored event sealed in place (openStores, timed alone);
// - the first start of `chronicle serve` to /ready (the read models built from the sealed log);
// - BENCH_ERASE_COUNT contacts erased one after another (POST /contacts/:id/erase): each answer's time,
//   and of it the read models' compaction (FTS optimize, WAL emptied), from the server's log line;
// - `chronicle erasures compact` with the server stopped (VACUUM of both files), step by step.
// Not a test: it prints figures. Every phase is bounded in time or count.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as E from 'fp-ts/lib/Either.js';
import { loadConfig } from '../src/config.js';
import { issueApiKey } from '../src/features/apiKeys/application/issueApiKey.js';
import { openStores, embeddedDatabaseFile } from '../src/startup/adapters.js';
import { closeStores } from '../src/startup/Stores.js';
import { systemClock } from '../src/shared/Clock.js';
import { newId } from '../src/shared/ids.js';
import { SPECIFICATION_PERMISSIONS } from '../src/shared/permissions.js';
import { tempDir } from '../test/support/tempStore.js';
import { freePort } from '../test/support/freePort.js';
import { seedScaleLog } from './support/seedScaleLog.js';
import { CLI, stopProcess } from './support/httpLoad.js';

/** Six events per contact and its deal: 166,667 contacts make about 1,000,000 events. */
const CONTACTS = Number(process.env.BENCH_ERASE_CONTACTS ?? 166_667);
const ERASURES = Number(process.env.BENCH_ERASE_COUNT ?? 5);
const READY_WITHIN_MS = 40 * 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

interface Served {
  readonly child: ChildProcess;
  readonly base: string;
  readonly readyMs: number;
  readonly log: () => string;
}

const serve = async (dataDir: string): Promise<Served> => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', RATE_LIMIT_HOURLY: '100000000', RATE_LIMIT_DAILY: '100000000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  while (performance.now() - started < READY_WITHIN_MS) {
    const ready = await fetch(`${base}/ready`).then((r) => r.status, () => 0);
    if (ready === 200) return { child, base, readyMs: performance.now() - started, log: () => log };
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`chronicle serve exited with ${child.exitCode ?? child.signalCode}:\n${log.slice(-2000)}`);
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error(`not ready within ${READY_WITHIN_MS} ms`);
};

/** The `ms` of every `erasure: read models compacted` line the server logged. */
const compactions = (log: string): number[] =>
  log
    .split('\n')
    .filter((line) => line.includes('"erasure: read models compacted"'))
    .map((line) => (JSON.parse(line) as { ms: number }).ms);

const main = async (): Promise<void> => {
  const dir = tempDir('chronicle-bench-erase-');
  try {
    const seeded = seedScaleLog(embeddedDatabaseFile(dir.path), CONTACTS);
    console.log(`log of an earlier release: ${seeded.events} events (${CONTACTS} contacts, each with a deal), values in the clear`);

    const config = loadConfig({ DATA_DIR: dir.path });
    const migrating = performance.now();
    const stores = await openStores(config);
    const migrationMs = performance.now() - migrating;
    const issue = async (permissions: Parameters<typeof issueApiKey>[1]['permissions']) => {
      const issued = await issueApiKey(
        { eventStore: stores.eventStore, newId, clock: systemClock },
        { companyId: seeded.companyId, name: null, type: 'generic', permissions, expiresAt: null, metadata: { source: 'cli', correlationId: newId() } },
      );
      if (E.isLeft(issued)) throw new Error(JSON.stringify(issued.left));
      return issued.right.key;
    };
    const reader = await issue(SPECIFICATION_PERMISSIONS);
    const eraser = await issue(['contacts:erase']);
    await closeStores(stores);
    console.log(`migration at the first start (reservation streams renamed, every event sealed in place): ${seconds(migrationMs)}`);

    const served = await serve(dir.path);
    console.log(`first start to /ready (read models built from the sealed log): ${seconds(served.readyMs)}`);
    const took: number[] = [];
    try {
      const page = (await (await fetch(`${served.base}/contacts?limit=${ERASURES}&page=100`, { headers: { Authorization: `Bearer ${reader}` } })).json()) as {
        data: { id: string }[];
      };
      for (const { id } of page.data) {
        const at = performance.now();
        const res = await fetch(`${served.base}/contacts/${id}/erase`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${eraser}`, 'Content-Type': 'application/json' },
          body: '{}',
        });
        if (res.status !== 200) throw new Error(`erase answered ${res.status}: ${await res.text()}`);
        took.push(performance.now() - at);
      }
      await sleep(200);
    } finally {
      await stopProcess(served.child);
    }
    const compacted = compactions(served.log());
    console.log('\n| erasure | answered in | of it, the read models compacted | the rest |\n|---:|---:|---:|---:|');
    took.forEach((ms, i) => {
      const compaction = compacted[i] ?? NaN;
      console.log(`| ${i + 1} | ${Math.round(ms)} ms | ${compaction} ms | ${Math.round(ms - compaction)} ms |`);
    });

    const compacting = performance.now();
    const run = spawnSync(process.execPath, [CLI, 'erasures', 'compact', '--json'], { env: { ...process.env, DATA_DIR: dir.path }, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`erasures compact exited with ${run.status}: ${run.stderr}`);
    console.log(`\nchronicle erasures compact (server stopped): ${seconds(performance.now() - compacting)} in all`);
    for (const step of (JSON.parse(run.stdout) as { steps: { what: string; ms: number; done: boolean }[] }).steps) {
      console.log(`  ${step.done ? 'done' : 'NOT DONE'}  ${step.what}: ${step.ms} ms`);
    }
  } finally {
    dir.dispose();
  }
};

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
