// npm run bench:read-models — the read models: SQLite beside memory (and PostgreSQL when POSTGRES_TEST_URL is set), on one log, in one run;
// and SQLite's cost per create in the small batches a group commit of creates hands the projector.
// Not a test: it prints figures. Every loop is bounded by a count.
import { existsSync, statSync } from 'node:fs';
import { SqliteEventStore } from '../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteReadModelStore } from '../src/adapters/sqlite/SqliteReadModelStore.js';
import { MemoryReadModelStore } from '../src/adapters/memory/MemoryReadModelStore.js';
import type { ListQuery, ReadModelDocument, ReadModelStore } from '../src/application/ports/ReadModelStore.js';
import { openSqliteDatabase } from '../src/adapters/sqlite/openSqliteDatabase.js';
import type { EventMetadata } from '../src/shared/EventMetadata.js';
import { embeddedDatabaseFile, embeddedReadModelsFile } from '../src/startup/adapters.js';
import { PROJECTIONS } from '../src/features/index.js';
import { contactsProjection } from '../src/features/contacts/readModels/contactsProjection.js';
import { dealsProjection } from '../src/features/deals/readModels/dealsProjection.js';
import { contactListQuery } from '../src/features/contacts/readModels/contactQueries.js';
import { dealListQuery } from '../src/features/deals/readModels/dealQueries.js';
import { READ_MODELS_CHECKPOINT } from '../src/application/subscriptions/ProjectionRunner.js';
import { tempDir } from '../test/support/tempStore.js';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../test/support/postgres.js';
import { PostgresReadModelStore } from '../src/adapters/postgres/PostgresReadModelStore.js';
import pg from 'pg';
import { seedScaleLog } from './support/seedScaleLog.js';

const CONTACTS = Number(process.env.BENCH_RM_CONTACTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_RM_ROUNDS ?? 50);

/** Applies the whole log in batches of 1,000, as the runner does, and answers events/s. */
const applyLog = async (eventStore: SqliteEventStore, store: ReadModelStore): Promise<{ events: number; ms: number }> => {
  const collections = PROJECTIONS.map((projection) => store.collection(projection));
  const started = performance.now();
  let after: string | null = null;
  let events = 0;
  for (;;) {
    const batch = await eventStore.readAll({ after, maxCount: 1000 });
    if (batch.length === 0) break;
    await store.applyBatch(collections, batch, READ_MODELS_CHECKPOINT);
    events += batch.length;
    after = batch[batch.length - 1]!.position;
  }
  return { events, ms: performance.now() - started };
};

/** Contacts created per batch when the projector keeps up with the API: a group commit at 10 connections. */
const SMALL_BATCH = 6;
/** Contacts created in SMALL_BATCH batches (the log's first). */
const SMALL_BATCHES_CREATES = 6_000;

/**
 * Applies the log's first SMALL_BATCHES_CREATES `ContactCreated` events to a fresh
 * SQLite file in batches of SMALL_BATCH, sharing a commit among eight batches as a
 * process serving the API does (`shareCommitMs`): what the read models cost a
 * create while they keep up with POST /contacts, each batch's fixed work included.
 * Answers CPU µs per create.
 */
const applySmallBatches = async (eventStore: SqliteEventStore): Promise<{ creates: number; cpuMicros: number }> => {
  const creates = [];
  for (let after: string | null = null; creates.length < SMALL_BATCHES_CREATES; ) {
    const batch = await eventStore.readAll({ after, maxCount: 1000 });
    if (batch.length === 0) break;
    creates.push(...batch.filter((event) => event.type === 'ContactCreated'));
    after = batch[batch.length - 1]!.position;
  }
  creates.length = Math.min(creates.length, SMALL_BATCHES_CREATES);
  const dir = tempDir('chronicle-bench-small-batches-');
  try {
    const store = SqliteReadModelStore.open(embeddedReadModelsFile(dir.path), { shareCommitMs: 60_000 });
    const collections = PROJECTIONS.map((projection) => store.collection(projection));
    const cpu = process.cpuUsage();
    for (let i = 0, batches = 0; i < creates.length; i += SMALL_BATCH) {
      await store.applyBatch(collections, creates.slice(i, i + SMALL_BATCH), READ_MODELS_CHECKPOINT);
      if (++batches % 8 === 0) store.commitShared();
    }
    store.commitShared();
    const used = process.cpuUsage(cpu);
    await store.close();
    return { creates: creates.length, cpuMicros: (used.user + used.system) / creates.length };
  } finally {
    dir.dispose();
  }
};

/** The size and company of a log seeded by an earlier run. */
const keptLog = (file: string): { events: number; companyId: string } => {
  const db = openSqliteDatabase(file);
  const { n } = db.prepare('SELECT count(*) AS n FROM events').get() as { n: number };
  const { metadata } = db.prepare('SELECT metadata FROM events ORDER BY position LIMIT 1').get() as { metadata: string };
  db.close();
  return { events: n, companyId: (JSON.parse(metadata) as EventMetadata).companyId! };
};

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const time = async (run: () => Promise<unknown>): Promise<{ p50: number; p99: number }> => {
  await run();
  const ms: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await run();
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
};

/** The value `n` of one statement, on a connection of its own. */
const postgresQuery = async (url: string, sql: string): Promise<unknown> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n?: unknown }>(sql)).rows[0]?.n;
  } finally {
    await client.end();
  }
};

const fmt = (ms: number): string => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;

const queries = (companyId: string): { name: string; collection: 'contacts' | 'deals'; query: ListQuery }[] => {
  const contacts = (search: string, page = 1) => ({ name: `contacts search=${JSON.stringify(search)} page ${page}`, collection: 'contacts' as const, query: contactListQuery({ companyId, search, page, limit: 50 }) });
  const middle = Math.floor(CONTACTS / 2);
  return [
    { name: 'contacts page 1', collection: 'contacts', query: contactListQuery({ companyId, page: 1, limit: 50 }) },
    { name: `contacts page ${Math.floor(CONTACTS / 100)} (deep)`, collection: 'contacts', query: contactListQuery({ companyId, page: Math.floor(CONTACTS / 100), limit: 50 }) },
    contacts(`Contact ${middle}`),
    contacts('contact 1'),
    contacts('CONTACT 1', 3),
    contacts(`+49151${String(middle).padStart(8, '0').slice(0, 5)}`),
    contacts('co'),
    contacts('7'),
    contacts('nobody'),
    { name: 'deals status=won&stage=proposal page 3', collection: 'deals', query: dealListQuery({ companyId, status: 'won', stage: 'proposal', page: 3, limit: 50 }) },
    { name: 'deals status=lost page 1', collection: 'deals', query: dealListQuery({ companyId, status: 'lost', page: 1, limit: 50 }) },
    { name: 'deals page 1', collection: 'deals', query: dealListQuery({ companyId, page: 1, limit: 50 }) },
  ];
};

/** BENCH_RM_DIR keeps the log and the read models there; a later run measures them again without seeding (or applying). */
const KEEP = process.env.BENCH_RM_DIR;

const main = async (): Promise<void> => {
  const dir = KEEP ? { path: KEEP, dispose: () => undefined } : tempDir('chronicle-bench-read-models-');
  try {
    const logFile = embeddedDatabaseFile(dir.path);
    const rmFile = embeddedReadModelsFile(dir.path);
    // A kept log is measured again as it is (a second seed would add a company); kept read models too.
    const { events, companyId } = KEEP !== undefined && existsSync(logFile) ? keptLog(logFile) : seedScaleLog(logFile, CONTACTS);
    const kept = KEEP !== undefined && existsSync(rmFile);
    console.log(`Read-model benchmark: ${events} events, one company with ${CONTACTS} contacts and deals; ${ROUNDS} rounds per query\n`);
    const eventStore = SqliteEventStore.open(logFile);

    const memory = new MemoryReadModelStore();
    const inMemory = await applyLog(eventStore, memory);
    console.log(`apply the log, memory: ${Math.round((inMemory.events * 1000) / inMemory.ms)} events/s (${(inMemory.ms / 1000).toFixed(1)} s)`);
    let sqlite: SqliteReadModelStore;
    if (!kept) {
      sqlite = SqliteReadModelStore.open(rmFile);
      const inSqlite = await applyLog(eventStore, sqlite);
      await sqlite.close();
      console.log(`apply the log, SQLite: ${Math.round((inSqlite.events * 1000) / inSqlite.ms)} events/s (${(inSqlite.ms / 1000).toFixed(1)} s)`);
    }
    console.log(`read-model file: ${(statSync(rmFile).size / 1e6).toFixed(0)} MB`);
    const small = await applySmallBatches(eventStore);
    console.log(`apply ${small.creates} contacts created, ${SMALL_BATCH} a batch, SQLite (a fresh file): ${small.cpuMicros.toFixed(1)} µs of CPU a create`);
    // PostgreSQL: a fresh database on the POSTGRES_TEST_URL server, dropped at the end.
    const serverUrl = postgresTestUrl();
    let database: FreshDatabase | null = null;
    let postgres: PostgresReadModelStore | null = null;
    if (serverUrl) {
      database = await freshPostgresDatabase(serverUrl);
      postgres = await PostgresReadModelStore.connect(database.url);
      const inPostgres = await applyLog(eventStore, postgres);
      console.log(`apply the log, PostgreSQL: ${Math.round((inPostgres.events * 1000) / inPostgres.ms)} events/s (${(inPostgres.ms / 1000).toFixed(1)} s)`);
      // What autovacuum does after a bulk load: statistics, the visibility map, GIN's pending entries merged.
      for (const table of ['contacts', 'deals']) await postgresQuery(database.url, `VACUUM ANALYZE "${postgres.schema}"."${table}"`);
      console.log(`PostgreSQL database: ${Math.round(Number(await postgresQuery(database.url, 'SELECT pg_database_size(current_database()) AS n')) / 1e6)} MB`);
    }

    const opened = performance.now();
    sqlite = SqliteReadModelStore.open(rmFile);
    for (const projection of PROJECTIONS) sqlite.collection(projection);
    const checkpoint = await sqlite.checkpoints.load(READ_MODELS_CHECKPOINT);
    await sqlite.collection(contactsProjection).list(contactListQuery({ companyId, page: 1, limit: 50 }));
    console.log(`reopen SQLite, bind 14 read models, load the checkpoint (${checkpoint}) and list a page: ${fmt(performance.now() - opened)}\n`);

    console.log(
      `${'query'.padEnd(46)} ${'memory p50/p99'.padStart(22)} ${'SQLite p50/p99'.padStart(22)}${postgres ? ' ' + 'PostgreSQL p50/p99'.padStart(22) : ''}  total`,
    );
    for (const { name, collection, query } of queries(companyId)) {
      const projection = (collection === 'contacts' ? contactsProjection : dealsProjection) as never;
      const inMem = memory.collection<ReadModelDocument>(projection);
      const inSql = sqlite.collection<ReadModelDocument>(projection);
      const [a, b] = [await inMem.list(query), await inSql.list(query)];
      if (a.total !== b.total || JSON.stringify(a.items.map((d) => d.id)) !== JSON.stringify(b.items.map((d) => d.id))) {
        throw new Error(`${name}: memory and SQLite differ (${a.total} vs ${b.total})`);
      }
      const m = await time(() => inMem.list(query));
      const s = await time(() => inSql.list(query));
      let p = '';
      if (postgres) {
        const inPg = postgres.collection<ReadModelDocument>(projection);
        const c = await inPg.list(query);
        if (a.total !== c.total || JSON.stringify(a.items.map((d) => d.id)) !== JSON.stringify(c.items.map((d) => d.id))) {
          throw new Error(`${name}: memory and PostgreSQL differ (${a.total} vs ${c.total})`);
        }
        const t = await time(() => inPg.list(query));
        p = ' ' + `${fmt(t.p50)} / ${fmt(t.p99)}`.padStart(22);
      }
      console.log(`${name.padEnd(46)} ${`${fmt(m.p50)} / ${fmt(m.p99)}`.padStart(22)} ${`${fmt(s.p50)} / ${fmt(s.p99)}`.padStart(22)}${p}  ${b.total}`);
    }
    await postgres?.close();
    await database?.drop();
    await sqlite.close();
    await eventStore.close();
  } finally {
    dir.dispose();
  }
};

await main();
