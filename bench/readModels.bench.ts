// npm run bench:read-models — the embedded read models: SQLite beside memory, on one log, in one run.
import type { CompanyName } from '../src/domain/companies/CompanyName.js';
// Not a test: it prints figures. Every loop is bounded by a count.
import { existsSync, statSync } from 'node:fs';
import * as E from 'fp-ts/lib/Either.js';
import { openSqliteDatabase } from '../src/adapters/sqlite/openSqliteDatabase.js';
import { SqliteEventStore } from '../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteReadModelStore } from '../src/adapters/sqlite/SqliteReadModelStore.js';
import { MemoryReadModelStore } from '../src/adapters/memory/MemoryReadModelStore.js';
import type { ListQuery, ReadModelDocument, ReadModelStore } from '../src/application/ports/ReadModelStore.js';
import type { EventMetadata } from '../src/shared/EventMetadata.js';
import type { Decider, DomainEvent } from '../src/shared/Decider.js';
import { newId } from '../src/shared/ids.js';
import { embeddedDatabaseFile, embeddedReadModelsFile } from '../src/main.js';
import { companyDecider } from '../src/domain/companies/companyDecider.js';
import { companyStream } from '../src/domain/companies/companyEvents.js';
import { contactDecider, type ContactState } from '../src/domain/contacts/contactDecider.js';
import { contactStream } from '../src/domain/contacts/contactEvents.js';
import { phoneReservationDecider } from '../src/domain/phoneReservation/phoneReservationDecider.js';
import { phoneReservationStream } from '../src/domain/phoneReservation/phoneReservationEvents.js';
import { contactSummaryOf } from '../src/domain/deals/dealContactSummary.js';
import { dealDecider, type DealState } from '../src/domain/deals/dealDecider.js';
import { dealStream } from '../src/domain/deals/dealEvents.js';
import { allProjections } from '../projections/index.js';
import { contactsProjection } from '../projections/contacts/contactsProjection.js';
import { dealsProjection } from '../projections/deals/dealsProjection.js';
import { contactListQuery } from '../projections/contacts/contactQueries.js';
import { dealListQuery } from '../projections/deals/dealQueries.js';
import { READ_MODELS_CHECKPOINT } from '../src/application/ProjectionRunner.js';
import { tempDir } from '../test/support/tempStore.js';

const CONTACTS = Number(process.env.BENCH_RM_CONTACTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_RM_ROUNDS ?? 50);

const decided = <C, Ev extends DomainEvent, S, Err>(decider: Decider<C, Ev, S, Err>, command: C, state: S): readonly Ev[] => {
  const result = decider.decide(command, state);
  if (E.isLeft(result)) throw new Error(`seed command refused: ${JSON.stringify(result.left)}`);
  return result.right;
};

const fold = <C, Ev extends DomainEvent, S, Err>(decider: Decider<C, Ev, S, Err>, state: S, events: readonly Ev[]): S =>
  events.reduce((s, e) => decider.evolve(s, e), state);

/**
 * The issue's log, scaled: one company; per contact a phone reservation,
 * `ContactCreated`, a `ContactUpdated`, and a deal that moves to a stage and is
 * won (three in four; the rest lost). Written straight into the SQLite file.
 */
const seed = (file: string, contacts: number): { events: number; companyId: string } => {
  const db = openSqliteDatabase(file);
  const insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const revisions = new Map<string, number>();
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  let written = 0;
  const append = (stream: string, events: readonly DomainEvent[], metadata: EventMetadata, at: string): void => {
    for (const event of events) {
      const revision = revisions.get(stream) ?? 0;
      revisions.set(stream, revision + 1);
      insert.run(newId(), stream, revision, event.type, JSON.stringify(event.data), JSON.stringify(metadata), at);
      written++;
    }
  };
  const companyId = newId();
  const metadata: EventMetadata = { source: 'api', correlationId: newId(), companyId, keyId: 'key' };
  db.transaction(() => {
    const at0 = new Date(start).toISOString();
    append(companyStream(companyId), decided(companyDecider, { type: 'CreateCompany', companyId, name: 'Bench' as CompanyName, at: new Date(at0) }, companyDecider.initialState), metadata, at0);
    const stages = ['qualification', 'proposal', 'negotiation'];
    for (let i = 0; i < contacts; i++) {
      const at = (step: number) => new Date(start + 1000 * i + step).toISOString();
      const contactId = newId();
      const phoneNumber = `+49151${String(i).padStart(8, '0')}`;
      append(
        phoneReservationStream(companyId, phoneNumber),
        decided(phoneReservationDecider, { type: 'ReservePhoneNumber', companyId, phoneNumber, contactId, at: new Date(at(0)) }, phoneReservationDecider.initialState),
        metadata,
        at(0),
      );
      const fields = { name: `Contact ${i}`, phoneNumber, email: `contact${i}@example.com`, city: 'Berlin', tags: ['lead'] };
      const created = decided(contactDecider, { type: 'CreateContact', contactId, companyId, fields, at: new Date(at(1)) }, contactDecider.initialState);
      append(contactStream(contactId), created, metadata, at(1));
      let contact: ContactState = fold(contactDecider, contactDecider.initialState, created);
      const updated = decided(contactDecider, { type: 'UpdateContact', contactId, companyId, changes: { email: `contact${i}@example.org` }, at: new Date(at(2)) }, contact);
      append(contactStream(contactId), updated, metadata, at(2));
      contact = fold(contactDecider, contact, updated);
      if (contact.status !== 'active') throw new Error('no contact');
      const dealId = newId();
      const summary = contactSummaryOf(contact.contact);
      const dealCreated = decided(
        dealDecider,
        { type: 'CreateDeal', dealId, companyId, fields: { title: `Deal ${i}`, value: 1000, currency: 'EUR', stage: stages[0]! }, contact: summary, assignedTo: null, at: new Date(at(3)) },
        dealDecider.initialState,
      );
      append(dealStream(dealId), dealCreated, metadata, at(3));
      let deal: DealState = fold(dealDecider, dealDecider.initialState, dealCreated);
      for (const [step, change] of [
        [4, { stage: stages[1]! }],
        [5, { status: i % 4 === 3 ? ('lost' as const) : ('won' as const) }],
      ] as const) {
        const events = decided(dealDecider, { type: 'ChangeDealStatus', dealId, companyId, change, contact: summary, at: new Date(at(step)) }, deal);
        append(dealStream(dealId), events, metadata, at(step));
        deal = fold(dealDecider, deal, events);
      }
    }
  })();
  db.close();
  return { events: written, companyId };
};

/** Applies the whole log in batches of 1,000, as the runner does, and answers events/s. */
const applyLog = async (eventStore: SqliteEventStore, store: ReadModelStore): Promise<{ events: number; ms: number }> => {
  const collections = allProjections.map((projection) => store.collection(projection));
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
    const { events, companyId } = KEEP !== undefined && existsSync(logFile) ? keptLog(logFile) : seed(logFile, CONTACTS);
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

    const opened = performance.now();
    sqlite = SqliteReadModelStore.open(rmFile);
    for (const projection of allProjections) sqlite.collection(projection);
    const checkpoint = await sqlite.checkpoints.load(READ_MODELS_CHECKPOINT);
    await sqlite.collection(contactsProjection).list(contactListQuery({ companyId, page: 1, limit: 50 }));
    console.log(`reopen SQLite, bind 14 read models, load the checkpoint (${checkpoint}) and list a page: ${fmt(performance.now() - opened)}\n`);

    console.log(`${'query'.padEnd(46)} ${'memory p50/p99'.padStart(22)} ${'SQLite p50/p99'.padStart(22)}  total`);
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
      console.log(`${name.padEnd(46)} ${`${fmt(m.p50)} / ${fmt(m.p99)}`.padStart(22)} ${`${fmt(s.p50)} / ${fmt(s.p99)}`.padStart(22)}  ${b.total}`);
    }
    await sqlite.close();
    await eventStore.close();
  } finally {
    dir.dispose();
  }
};

await main();
