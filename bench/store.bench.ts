// npm run bench:store — the embedded event store against raw better-sqlite3, in one run.
// Not a test: it prints figures and ratios. Every loop is bounded by time or count.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { SqliteEventStore } from '../src/adapters/sqlite/SqliteEventStore.js';
import { openSqliteDatabase } from '../src/adapters/sqlite/openSqliteDatabase.js';
import { MemoryReadModelStore } from '../src/adapters/memory/MemoryReadModelStore.js';
import { ProjectionRunner } from '../src/application/subscriptions/ProjectionRunner.js';
import { handleCommand } from '../src/application/commands/handleCommand.js';
import { silentLogger } from '../src/application/ports/Logger.js';
import { CounterEvent, counterDecider } from '../test/support/counterDecider.js';
import { taskProjection } from '../test/support/taskProjection.js';
import { tempDir } from '../test/support/tempStore.js';
import { newId } from '../src/shared/ids.js';
import { rate, rawReadParse, readAllBatches } from './logReadRates.js';

const APPEND_SECONDS = Number(process.env.BENCH_APPEND_SECONDS ?? 3);
const LOG_EVENTS = Number(process.env.BENCH_LOG_EVENTS ?? 200_000);
const metadata = { source: 'system' as const, correlationId: 'bench', companyId: 'co-bench' };

const row = (name: string, perSecond: number, baseline?: { name: string; perSecond: number }): void => {
  const ratio = baseline ? `  ${(perSecond / baseline.perSecond).toFixed(2)}× ${baseline.name}` : '';
  console.log(`${name.padEnd(58)} ${String(perSecond).padStart(9)} /s${ratio}`);
};

/** Raw: one single-row INSERT per synchronous=FULL transaction, for APPEND_SECONDS. */
const rawSingleInserts = (file: string): number => {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE raw (position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE, data TEXT)');
  const insert = db.prepare('INSERT INTO raw (id, data) VALUES (?, ?)');
  const once = db.transaction(() => insert.run(newId(), '{"by":1}'));
  const start = performance.now();
  let count = 0;
  while (performance.now() - start < APPEND_SECONDS * 1000) {
    once.immediate();
    count++;
  }
  const ms = performance.now() - start;
  db.close();
  return rate(count, ms);
};

/**
 * N concurrent command handlers, as N concurrent requests would run them: each
 * command creates a stream (read it, fold, decide, append with no_stream).
 */
const commandHandlers = async (file: string, concurrency: number): Promise<number> => {
  const store = SqliteEventStore.open(file);
  const deps = { eventStore: store, newId: newId };
  const deadline = performance.now() + APPEND_SECONDS * 1000;
  let count = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const result = await handleCommand(deps, {
          decider: counterDecider,
          eventCodec: CounterEvent,
          stream: `counter-${newId()}`,
          command: { type: 'increment', by: 1, max: 10 },
          metadata,
        });
        if (E.isLeft(result)) throw new Error('unexpected domain error');
        count++;
      }
    }),
  );
  const ms = performance.now() - start;
  await store.close();
  return rate(count, ms);
};

/** Writes a log of LOG_EVENTS task events (creations and renames) in big transactions. */
const writeLog = (file: string): void => {
  const db = openSqliteDatabase(file);
  const insert = db.prepare(
    'INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const tasks = Math.max(1, Math.floor(LOG_EVENTS / 4));
  const revisions = new Map<number, number>();
  const at = new Date().toISOString();
  const meta = JSON.stringify(metadata);
  db.transaction(() => {
    for (let i = 0; i < LOG_EVENTS; i++) {
      const task = i < tasks ? i : i % tasks;
      const revision = revisions.get(task) ?? 0;
      revisions.set(task, revision + 1);
      const data =
        revision === 0
          ? { id: `t${task}`, title: `Task ${task}`, status: 'open', points: task % 13, tags: ['a', 'b'], owner: null, at }
          : { id: `t${task}`, title: `Task ${task} v${revision}`, at };
      insert.run(newId(), `task-${task}`, revision, revision === 0 ? 'TaskCreated' : 'TaskRenamed', JSON.stringify(data), meta, at);
    }
  })();
  db.close();
};

const TaskEvent = t.union([
  t.type({ type: t.literal('TaskCreated'), data: t.type({ id: t.string, title: t.string, status: t.string, points: t.number, tags: t.array(t.string), at: t.string }) }),
  t.type({ type: t.literal('TaskRenamed'), data: t.type({ id: t.string, title: t.string, at: t.string }) }),
]);

/** Through the port: readAll pages of 1000, plus decoding each event with an io-ts codec. */
const readAllDecoded = async (file: string): Promise<number> =>
  (
    await readAllBatches(file, 1000, (event) => {
      if (E.isLeft(TaskEvent.decode(event))) throw new Error(`event ${event.id} does not decode`);
    })
  ).perSecond;

/** A full rebuild of an in-memory read model from the log, as at start-up. */
const rebuild = async (file: string): Promise<number> => {
  const eventStore = SqliteEventStore.open(file);
  const readModels = new MemoryReadModelStore();
  const tasks = readModels.collection(taskProjection);
  const runner = new ProjectionRunner({ eventStore, readModels, collections: [tasks as never], logger: silentLogger });
  const start = performance.now();
  await runner.start();
  const ms = performance.now() - start;
  await runner.stop();
  await eventStore.close();
  return rate(LOG_EVENTS, ms);
};

const main = async (): Promise<void> => {
  const dir = tempDir('chronicle-bench-');
  try {
    console.log(`Event store benchmark (SQLite, WAL, synchronous=FULL); appends for ${APPEND_SECONDS} s each, log of ${LOG_EVENTS} events\n`);
    const raw = { name: 'raw insert', perSecond: rawSingleInserts(join(dir.path, 'raw.sqlite')) };
    row('raw better-sqlite3: 1-row INSERT per FULL transaction', raw.perSecond);
    row('durable appends, 1 command handler', await commandHandlers(join(dir.path, 'one.sqlite'), 1), raw);
    const fifty = await commandHandlers(join(dir.path, 'fifty.sqlite'), 50);
    row('durable appends, 50 concurrent command handlers', fifty, raw);

    const log = join(dir.path, 'log.sqlite');
    writeLog(log);
    const rawRead = { name: 'raw read+parse', perSecond: rawReadParse(log) };
    console.log('');
    row('raw better-sqlite3: SELECT iterate() + JSON.parse', rawRead.perSecond);
    row('readAll through the port + io-ts decode', await readAllDecoded(log), rawRead);
    const rebuilt = await rebuild(log);
    row('read-model rebuild (ProjectionRunner, memory store)', rebuilt, rawRead);

    console.log('');
    console.log(`target: 50 concurrent ≥ 3× raw insert      → ${(fifty / raw.perSecond).toFixed(2)}× ${fifty >= 3 * raw.perSecond ? 'met' : 'NOT met'}`);
    console.log(`target: rebuild ≥ 0.5× raw read+parse       → ${(rebuilt / rawRead.perSecond).toFixed(2)}× ${rebuilt >= 0.5 * rawRead.perSecond ? 'met' : 'NOT met'}`);
  } finally {
    dir.dispose();
  }
};

await main();
