import { expect } from 'chai';
import fc from 'fast-check';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import type { PostgresDocumentCollection } from '../../../src/adapters/postgres/PostgresDocumentCollection.js';
import type { PostgresReadModelStore } from '../../../src/adapters/postgres/PostgresReadModelStore.js';
import { ReadModelSchemaTooNewError } from '../../../src/adapters/postgres/readModelSchema.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import { CheckpointMovedError, type DocumentCollection, type ListQuery, type Projection } from '../../../src/application/ports/ReadModelStore.js';
import { ProjectionRunner } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { ReadModelsOfAnotherLogError } from '../../../src/application/subscriptions/ReadModelsAheadOfLogError.js';
import { captureLogger } from '../../support/captureLogger.js';
import { anEvent } from '../../support/events.js';
import { skipLine } from '../../support/integration.js';
import { countStatements, postgresTestUrl } from '../../support/postgres.js';
import { postgresReadModelStores, type PostgresReadModelFixture } from '../../support/postgresReadModels.js';
import { taskProjection, type TaskCreatedData, type TaskDoc } from '../../support/taskProjection.js';
import { tempDir } from '../../support/tempStore.js';

const COMPANY = 'co-1';
const notesProjection: Projection<TaskDoc> = { ...taskProjection, name: 'test_notes' };

const created = (id: string, over: Partial<TaskCreatedData> = {}): TaskCreatedData => ({
  id,
  title: `Task ${id}`,
  status: 'open',
  points: 1,
  tags: [],
  owner: null,
  at: '2026-01-01T00:00:00.000Z',
  ...over,
});

const at = (position: string | number, type: string, data: unknown, companyId = COMPANY): RecordedEvent => ({
  id: randomUUID(),
  stream: `task-${companyId}`,
  revision: 0,
  position: String(position),
  type,
  data,
  metadata: { source: 'system', correlationId: 'c', companyId },
  recordedAt: new Date().toISOString(),
});

const all = (over: Partial<ListQuery> = {}): ListQuery => ({ companyId: COMPANY, filters: [], page: 1, limit: 200, order: 'asc', ...over });
const ids = async (collection: DocumentCollection<TaskDoc>, over: Partial<ListQuery> = {}) =>
  (await collection.list(all(over))).items.map((doc) => doc.id);

const url = postgresTestUrl();

if (!url) {
  skipLine('PostgresReadModelStore', 'POSTGRES_TEST_URL');
} else {
  describe('PostgresReadModelStore', function () {
    this.timeout(60_000);
    const stores = postgresReadModelStores(url);
    const opened: PostgresReadModelFixture[] = [];
    /** A store in a fresh schema, or a second one on the schema of `beside` (another process on the same database). */
    const openStore = async (beside?: PostgresReadModelStore): Promise<PostgresReadModelStore> => {
      const fixture = await stores.open(beside ? { schema: beside.schema } : {});
      opened.push(fixture);
      return fixture.store;
    };
    /** One statement on a connection of its own (another process). */
    const elsewhere = (sql: string) => stores.run(sql);

    afterEach(async () => {
      // Stores sharing a schema close first; the schema's first store drops it.
      for (const fixture of opened.splice(0).reverse()) {
        if (opened.some((other) => other.schema === fixture.schema)) await fixture.store.close();
        else await fixture.dispose();
      }
    });
    after(() => stores.dropDatabase());

    describe('a batch and its checkpoint', () => {
      it('commit together, or not at all', async () => {
        const store = await openStore();
        const tasks = store.collection(taskProjection);
        let calls = 0;
        const flaky: Projection<TaskDoc> = {
          ...taskProjection,
          name: 'test_flaky',
          evolve: (doc, event) => {
            if (++calls === 2) throw new Error('projection failed');
            return taskProjection.evolve(doc, event);
          },
        };
        const failing = store.collection(flaky);
        await store.applyBatch([tasks as never, failing as never], [at(1, 'TaskCreated', created('a'))], 'read-models');
        const batch = [at(2, 'TaskCreated', created('b')), at(3, 'TaskCreated', created('c'))];
        const error = await store.applyBatch([tasks as never, failing as never], batch, 'read-models').catch((e: unknown) => e);
        expect(error).to.be.instanceOf(Error);
        // The first collection had applied the batch when the second failed: rolled back with it, its counts too.
        expect(await ids(tasks)).to.deep.equal(['a']);
        expect((await tasks.list(all())).total).to.equal(1);
        expect(await store.checkpoints.load('read-models')).to.equal('1');
      });

      it('beside the log, applies only a batch whose last event the log holds at its position (a batch read from a primary that failed over is refused, nothing of it kept)', async () => {
        const fixture = await stores.open({ besideLog: true });
        opened.push(fixture);
        const store = fixture.store;
        const tasks = store.collection(taskProjection);
        // The log as the new primary has it: 1 and 2, and at 3 another event than the batch's (the old primary's 3 was lost).
        const first = [at(1, 'TaskCreated', created('a')), at(2, 'TaskCreated', created('b'))];
        await elsewhere('CREATE TABLE IF NOT EXISTS log_events (position bigint PRIMARY KEY, id text NOT NULL UNIQUE)');
        await elsewhere(`INSERT INTO log_events (position, id) VALUES (1, '${first[0]!.id}'), (2, '${first[1]!.id}'), (3, '${randomUUID()}')`);
        await store.applyBatch([tasks as never], first, 'read-models');
        expect(await ids(tasks)).to.deep.equal(['a', 'b']);
        // A batch of creations goes in one round trip, then as any batch: refused both ways.
        const lost = [at(3, 'TaskCreated', created('lost'))];
        const refused = await store.applyBatch([tasks as never], lost, 'read-models').catch((error: unknown) => error);
        expect(String(refused)).to.match(/the log holds \S+ at position 3, not the batch's event/);
        expect(await ids(tasks)).to.deep.equal(['a', 'b']);
        expect([await store.checkpoints.load('read-models'), await store.checkpoints.loadEventId('read-models')]).to.deep.equal(['2', first[1]!.id]);
        await elsewhere('DROP TABLE log_events');
      });

      it('keeps the id of the event at the checkpoint (the last one applied, or the replay’s)', async () => {
        const store = await openStore();
        const tasks = store.collection(taskProjection);
        const batch = [at(1, 'TaskCreated', created('a')), at(2, 'TaskCreated', created('b'))];
        await store.applyBatch([tasks as never], batch, 'read-models');
        expect(await store.checkpoints.loadEventId('read-models')).to.equal(batch[1]!.id);
        const staging = await store.staging();
        await staging.swap({ name: 'read-models', position: '9', eventId: 'event-at-9', expected: '2' });
        expect([await store.checkpoints.load('read-models'), await store.checkpoints.loadEventId('read-models')]).to.deep.equal(['9', 'event-at-9']);
      });

      it('sends the checkpoint’s lock and read with the BEGIN and its save with the COMMIT, any name taken literally', async () => {
        const store = await openStore();
        const tasks = store.collection(taskProjection) as PostgresDocumentCollection<TaskDoc>;
        const name = `read-models 'quoted' \\ "odd"; --`;
        await tasks.ready(); // its table made (under a lock of its own) before the statements are counted
        const begins = countStatements(tasks.context.pool, 'BEGIN;');
        const locks = countStatements(tasks.context.pool, 'SELECT pg_advisory_xact_lock');
        const batch = [at(1, 'TaskCreated', created('a')), at(2, 'TaskCreated', created('b'))];
        await store.applyBatch([tasks as never], batch, name);
        expect([begins.count, locks.count]).to.deep.equal([1, 0]);
        expect([await store.checkpoints.load(name), await store.checkpoints.loadEventId(name)]).to.deep.equal(['2', batch[1]!.id]);
        expect(await store.checkpoints.load('read-models'), 'no other checkpoint written').to.equal(null);
        await store.applyBatch([tasks as never], [...batch, at(3, 'TaskCreated', created('c'))], name);
        expect(await ids(tasks)).to.deep.equal(['a', 'b', 'c']);
        expect(await store.checkpoints.load(name)).to.equal('3');
        // Nothing fresh: the checkpoint stays where it is.
        await store.applyBatch([tasks as never], batch, name);
        expect(await store.checkpoints.load(name)).to.equal('3');
        expect(begins.count, 'a BEGIN with the lock for each batch').to.equal(3);
      });

      it('sends a batch of companies it knows in two round trips (loads with the BEGIN, writes with the COMMIT), any text taken literally', async () => {
        const store = await openStore();
        const tasks = store.collection(taskProjection) as PostgresDocumentCollection<TaskDoc>;
        const memory = new MemoryReadModelStore().collection(taskProjection);
        const odd = [`it's`, 'back\\slash \\', '"quoted" ""', '{braces}, and commas', 'NULL', '$1 $2 $$', 'ünïcödé ✓ 𝄞', '', ' '];
        const first = odd.map((title, i) =>
          at(i + 1, 'TaskCreated', created(`t${i}'`, { title, status: i % 2 ? 'NULL' : `s"${i % 3}`, tags: [title, 'x'], owner: { id: `o'${i % 2}`, name: title } })),
        );
        // The first batch assigns the company its key: each collection loads and writes in turn.
        await store.applyBatch([tasks as never], first, 'read-models');
        const statements = countStatements(tasks.context.pool, '');
        const second = [
          at(20, 'TaskCreated', created('new \\ \'one\'', { title: 'a {"json": [1, null]} text', tags: ['NULL', '', '"'] })),
          at(21, 'TaskRenamed', { id: "t0'", title: "renamed \\ ' \"", at: '2026-01-02T00:00:00.000Z' }),
          at(22, 'TaskMoved', { id: "t2'", status: 'moved', owner: null, at: '2026-01-02T00:00:00.000Z' }),
          at(23, 'TaskDeleted', { id: "t1'" }),
          at(24, 'OwnerRenamed', { ownerId: "o'0", name: 'new "owner" \\' }),
        ];
        await store.applyBatch([tasks as never], second, 'read-models');
        expect(statements.count, 'round trips of the second batch').to.equal(2);
        await memory.apply([...first, ...second]);
        for (const query of [all(), all({ filters: [{ op: 'eq', field: 'status', value: 'NULL' }] }), all({ filters: [{ op: 'contains', fields: ['title'], text: "'s" }] })]) {
          const [expected, actual] = [await memory.list(query), await tasks.list(query)];
          expect(actual.items, JSON.stringify(query.filters)).to.deep.equal(expected.items);
          expect(actual.total).to.equal(expected.total);
        }
        expect(await store.checkpoints.load('read-models')).to.equal('24');
        expect(await store.checkpoints.loadEventId('read-models')).to.equal(second[4]!.id);
      });

      it('sends a batch of creations in one round trip once it knows its checkpoint, and applies it as any other when another process moved it', async () => {
        const creating: Projection<TaskDoc> = { ...taskProjection, creates: (event) => event.type === 'TaskCreated' };
        const store = await openStore();
        const beside = await openStore(store);
        const tasks = store.collection(creating) as PostgresDocumentCollection<TaskDoc>;
        const memory = new MemoryReadModelStore().collection(taskProjection);
        const applied: RecordedEvent[] = [];
        const apply = async (on: PostgresReadModelStore, batch: RecordedEvent[]) => {
          await on.applyBatch([on.collection(creating) as never], batch, 'read-models');
          applied.push(...batch.filter((event) => !applied.some((seen) => seen.position === event.position)));
        };
        // The first batch assigns the company its key and learns where the checkpoint stands.
        await apply(store, [at(1, 'TaskCreated', created('a')), at(2, 'TaskCreated', created('b', { status: 'done' }))]);
        const statements = countStatements(tasks.context.pool, '');
        await apply(store, [at(3, 'TaskCreated', created("c'", { title: "it's \\ a \"title\"", owner: { id: 'o', name: 'O' } })), at(4, 'TaskCreated', created('d'))]);
        expect(statements.count, 'round trips of a batch of creations').to.equal(1);
        // Not creations only: loads first (two round trips).
        statements.count = 0;
        await apply(store, [at(5, 'TaskCreated', created('e')), at(6, 'TaskRenamed', { id: 'a', title: 'renamed', at: '2026-01-02T00:00:00.000Z' })]);
        expect(statements.count, 'round trips of a batch that renames').to.equal(2);
        // Another process applies the next events: this store's check fails, and it skips what that one applied.
        await apply(beside, [at(7, 'TaskCreated', created('f'))]);
        statements.count = 0;
        await apply(store, [at(7, 'TaskCreated', created('f')), at(8, 'TaskCreated', created('g'))]);
        // The failed round trip and its ROLLBACK, then the batch as any other (part of it applied: collection by collection).
        expect(statements.count).to.be.above(3);
        await memory.apply(applied);
        for (const query of [all(), all({ filters: [{ op: 'eq', field: 'status', value: 'done' }] }), all({ filters: [{ op: 'contains', fields: ['title'], text: "'s" }] })]) {
          const [expected, actual] = [await memory.list(query), await tasks.list(query)];
          expect(actual.items, JSON.stringify(query.filters)).to.deep.equal(expected.items);
          expect(actual.total).to.equal(expected.total);
        }
        expect([await store.checkpoints.load('read-models'), await store.checkpoints.loadEventId('read-models')]).to.deep.equal(['8', applied[7]!.id]);
        // Known again: the next batch of creations is one round trip.
        statements.count = 0;
        await apply(store, [at(9, 'TaskCreated', created('h'))]);
        expect(statements.count).to.equal(1);
      });

      it('applies a batch of creations as any other when a document it creates is stored after all', async () => {
        const creating: Projection<TaskDoc> = { ...taskProjection, creates: (event) => event.type === 'TaskCreated' };
        const store = await openStore();
        const tasks = store.collection(creating) as PostgresDocumentCollection<TaskDoc>;
        await store.applyBatch([tasks as never], [at(1, 'TaskCreated', created('a'))], 'read-models');
        // Another process (a projection that does not say it creates) stored `b`, and the checkpoint was put back.
        const beside = await openStore(store);
        await beside.applyBatch([beside.collection(taskProjection) as never], [at(2, 'TaskCreated', created('b', { title: 'first' }))], 'read-models');
        await elsewhere(`UPDATE "${store.schema}".checkpoints SET position = '1' WHERE name = 'read-models'`);
        await store.applyBatch([tasks as never], [at(2, 'TaskCreated', created('b', { title: 'again' })), at(3, 'TaskCreated', created('c'))], 'read-models');
        const page = await tasks.list(all());
        expect(page.items.map((doc) => [doc.id, doc.title])).to.deep.equal([
          ['a', 'Task a'],
          ['b', 'first'],
          ['c', 'Task c'],
        ]);
        expect(page.total).to.equal(3);
        expect(await store.checkpoints.load('read-models')).to.equal('3');
      });

      it('skips events at or before the checkpoint another process saved, also when both write at once', async () => {
        const first = await openStore();
        const second = await openStore(first);
        const seen: string[] = [];
        const spying: Projection<TaskDoc> = {
          ...taskProjection,
          evolve: (doc, event) => {
            seen.push(event.position);
            return taskProjection.evolve(doc, event);
          },
        };
        const events = Array.from({ length: 40 }, (_, n) => at(n + 1, 'TaskCreated', created(`t${n + 1}`)));
        await first.applyBatch([first.collection(taskProjection) as never], events.slice(0, 3), 'read-models');
        await second.applyBatch([second.collection(spying) as never], events.slice(0, 4), 'read-models');
        expect(seen).to.deep.equal(['4']);
        // Two processes applying batches from the same checkpoint at once: one waits for the other, then skips what it applied.
        seen.length = 0;
        await Promise.all([
          first.applyBatch([first.collection(taskProjection) as never], events.slice(4, 30), 'read-models'),
          second.applyBatch([second.collection(spying) as never], events.slice(4, 40), 'read-models'),
        ]);
        expect(seen).to.deep.equal(seen[0] === '5' ? events.slice(4, 40).map((e) => e.position) : events.slice(30, 40).map((e) => e.position));
        expect(await first.checkpoints.load('read-models')).to.be.oneOf(['30', '40']);
        await first.applyBatch([first.collection(taskProjection) as never], events, 'read-models');
        expect(await second.checkpoints.load('read-models')).to.equal('40');
        const tasks = first.collection(taskProjection);
        expect((await tasks.list(all())).total).to.equal(40);
        expect(await ids(tasks)).to.deep.equal(events.map((event) => (event.data as TaskCreatedData).id));
      });

      it('lets a restart resume from the checkpoint, and refuses read models of another log', async () => {
        const logDir = tempDir('chronicle-pg-rm-log-');
        const eventStore = SqliteEventStore.open(join(logDir.path, 'chronicle.sqlite'));
        try {
          for (let i = 0; i < 25; i++) await eventStore.append(`task-${i}`, [anEvent('TaskCreated', created(`t${i}`), COMPANY)], 'no_stream');
          let store = await openStore();
          const runnerOn = (readModels: PostgresReadModelStore, logger = captureLogger()) =>
            new ProjectionRunner({ eventStore, readModels, collections: [readModels.collection(taskProjection) as never], logger });
          let runner = runnerOn(store);
          await runner.start();
          expect(runner.eventsApplied).to.equal(25);
          await runner.stop();

          store = await openStore(store);
          const logger = captureLogger();
          runner = runnerOn(store, logger);
          await runner.start();
          expect(runner.eventsApplied).to.equal(0);
          expect(logger.lines.map((line) => line.msg)).to.include('read models resumed at the head of the log');
          const { position } = await eventStore.append('task-new', [anEvent('TaskCreated', created('new'), COMPANY)], 'no_stream');
          expect(await runner.waitFor(position, 5000)).to.equal(true);
          expect((await store.collection(taskProjection).list(all())).total).to.equal(26);
          await runner.stop();

          // The checkpoint's event id no longer matches the log's event at its position: another log.
          await elsewhere(`UPDATE "${store.schema}".checkpoints SET event_id = 'not-this-log'`);
          const refused = await runnerOn(store).start().catch((e: unknown) => e);
          expect(refused).to.be.instanceOf(ReadModelsOfAnotherLogError);
        } finally {
          await eventStore.close();
          logDir.dispose();
        }
      });
    });

    describe('documents PostgreSQL cannot hold as they are (NUL, lone surrogates)', () => {
      it('reads them back exactly, filters on them with U+FFFD in their place, and never matches a search across them', async () => {
        const store = await openStore();
        const tasks = store.collection(taskProjection);
        const odd = { title: 'nul\u0000inside \\u0000 "q"', status: 'lone\uD800 surrogate', tags: ['a\u0000b', '\uDC00'], owner: { id: 'u\u0000', name: 'n' } };
        // Through the store's batches: the company's first assigns its key, the later ones send their values inlined.
        const batch = (events: RecordedEvent[]) => store.applyBatch([tasks as never], events, 'read-models');
        await batch([at(1, 'TaskCreated', created('first'))]);
        await batch([at(2, 'TaskCreated', created('odd', odd)), at(3, 'TaskCreated', created('plain'))]);
        const doc = (await tasks.get(COMPANY, 'odd'))!;
        expect(doc).to.include({ title: odd.title, status: odd.status });
        expect(doc.tags).to.deep.equal(odd.tags);
        expect((await tasks.listCreatedAfter(COMPANY, null, 10))[1]).to.deep.equal(doc);
        expect((await tasks.list(all())).items[1]).to.deep.equal(doc);
        const scanned: TaskDoc[] = [];
        for await (const each of tasks.scan()) scanned.push(each);
        expect(scanned.find((each) => each.id === 'odd')).to.deep.equal(doc);
        const search = async (fields: readonly string[], text: string) => ids(tasks, { filters: [{ op: 'contains', fields, text }] });
        for (const fields of [['title'], ['title', 'status']]) {
          expect(await search(fields, 'nul')).to.deep.equal(['odd']);
          expect(await search(fields, 'l\u0000i')).to.deep.equal([]);
          expect(await search(fields, '\u0000')).to.deep.equal([]);
          expect(await search(fields, 'la')).to.deep.equal(['plain']);
          expect(await search(fields, '\\u0000')).to.deep.equal(['odd']);
        }
        expect(await ids(tasks, { filters: [{ op: 'hasAll', field: 'tags', values: ['a\u0000b'] }] })).to.deep.equal(['odd']);
        // A where-target finds it by its exact value.
        await batch([at(4, 'OwnerRenamed', { ownerId: 'u\u0000', name: 'renamed' })]);
        expect((await tasks.get(COMPANY, 'odd'))!.owner).to.deep.equal({ id: 'u\u0000', name: 'renamed' });
      });
    });

    describe('texts longer than an index entry holds', () => {
      it('writes them, and filters on them exactly as the memory adapter does', async () => {
        const tasks = (await openStore()).collection(taskProjection);
        const memory = new MemoryReadModelStore().collection(taskProjection);
        // Random text: PostgreSQL compresses a repetitive one below a B-tree entry's limit.
        const noise = randomBytes(12_000).toString('base64').replace(/[+/=]/g, 'x');
        const x = (n: number) => noise.slice(0, n);
        // An index holds 400 characters of `string:<value>`: values of 392, 393 and 394 characters sit at the edge.
        const statuses = [x(392), x(393), x(394), `${x(5000)}${'é'.repeat(3000)}`, `${x(5000)}${'é'.repeat(3000)}z`, 'zz', x(10)];
        const owner = { id: `u${x(6000)}`, name: 'Long' };
        const events = statuses.map((status, i) => at(i + 1, 'TaskCreated', created(`t${i}`, { status, title: `${x(9000)} title ${i}`, owner: i === 3 ? owner : null })));
        events.push(at(100, 'OwnerRenamed', { ownerId: owner.id, name: 'Renamed' }));
        await tasks.apply(events);
        await memory.apply(events);
        expect((await tasks.get(COMPANY, 't3'))!.owner).to.deep.equal({ id: owner.id, name: 'Renamed' });
        for (const bound of statuses) {
          for (const op of ['eq', 'gt', 'gte', 'lt', 'lte'] as const) {
            const query = all({ filters: [{ op, field: 'status', value: bound }] });
            const [found, expected] = [await tasks.list(query), await memory.list(query)];
            expect(found.items.map((doc) => doc.id), `${op} ${bound.length}`).to.deep.equal(expected.items.map((doc) => doc.id));
            expect(found.total).to.equal(expected.total);
          }
        }
        expect(await ids(tasks, { filters: [{ op: 'contains', fields: ['title'], text: ' TITLE 4' }] })).to.deep.equal(['t4']);
      });
    });

    describe('replay staging', () => {
      const seedLive = async (store: PostgresReadModelStore) => {
        const live = [store.collection(taskProjection), store.collection(notesProjection)];
        await store.applyBatch(live as never[], [at(1, 'TaskCreated', created('old'))], 'read-models');
        return live;
      };
      const tablesOf = async (store: PostgresReadModelStore): Promise<string[]> => {
        const client = new pg.Client({ connectionString: await stores.databaseUrl() });
        await client.connect();
        try {
          const { rows } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename LIKE 'test%'", [
            store.schema,
          ]);
          return rows.map((row) => row.name).sort();
        } finally {
          await client.end();
        }
      };

      it('serves the live tables, to this and other processes, until one transaction swaps every staged one in', async () => {
        const store = await openStore();
        const live = await seedLive(store);
        const staging = await store.staging();
        const staged = [staging.collection(taskProjection), staging.collection(notesProjection)];
        await staging.applyBatch(staged as never[], [at(5, 'TaskCreated', created('new', { title: 'Zebra new' }))]);
        const other = await openStore(store);
        const readers = [...live, other.collection(taskProjection), other.collection(notesProjection)];
        for (const collection of readers) expect(await ids(collection)).to.deep.equal(['old']);
        await staging.swap({ name: 'read-models', position: '5', expected: '1' });
        for (const collection of readers) expect(await ids(collection)).to.deep.equal(['new']);
        expect(await other.checkpoints.load('read-models')).to.equal('5');
        expect(await tablesOf(store)).to.deep.equal(['test_notes', 'test_notes__counts', 'test_tasks', 'test_tasks__counts']);
        // Vacuumed and analyzed before they served (a table never analyzed has -1 tuples).
        const client = new pg.Client({ connectionString: await stores.databaseUrl() });
        await client.connect();
        const { rows } = await client
          .query<{ tuples: number }>("SELECT reltuples AS tuples FROM pg_class WHERE oid = to_regclass($1)", [`"${store.schema}".test_tasks`])
          .finally(() => client.end());
        expect(rows[0]!.tuples).to.equal(1);
        // The swapped-in tables take the live ones' place for good: written to, counted and searched as before.
        await store.applyBatch(live as never[], [at(6, 'TaskRenamed', { id: 'new', title: 'Renamed again', at: '2026-02-01T00:00:00.000Z' })], 'read-models');
        for (const collection of readers) {
          expect(await ids(collection, { filters: [{ op: 'contains', fields: ['title'], text: 'AGAIN' }] })).to.deep.equal(['new']);
          expect((await collection.list(all({ filters: [{ op: 'eq', field: 'status', value: 'open' }] }))).total).to.equal(1);
        }
        // The next rebuild's tables take the same names again.
        const next = await store.staging();
        next.collection(taskProjection);
        await next.init();
        await next.swap({ name: 'read-models', position: '6' });
        expect(await ids(live[0]!)).to.deep.equal([]);
      });

      it('waits for a reader that holds a live table, then swaps', async () => {
        const store = await openStore();
        const live = await seedLive(store);
        const staging = await store.staging();
        await staging.applyBatch([staging.collection(taskProjection) as never], [at(5, 'TaskCreated', created('new'))]);
        const reader = new pg.Client({ connectionString: await stores.databaseUrl() });
        await reader.connect();
        try {
          await reader.query('BEGIN');
          await reader.query(`SELECT count(*) FROM "${store.schema}".test_tasks`);
          const swapped = staging.swap({ name: 'read-models', position: '5' });
          // Past one lock timeout: the swap tried, gave way, and tries again.
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          expect(await ids(live[1]!)).to.deep.equal(['old']);
          await reader.query('COMMIT');
          await swapped;
        } finally {
          await reader.end();
        }
        expect(await ids(live[0]!)).to.deep.equal(['new']);
      });

      it('changes nothing when the swap fails half-way', async () => {
        const store = await openStore();
        const live = await seedLive(store);
        const staging = await store.staging();
        const staged = [staging.collection(taskProjection), staging.collection(notesProjection)];
        await staging.applyBatch(staged as never[], [at(5, 'TaskCreated', created('new'))]);
        // Another process drops the second staged table: its rename fails after the first one's succeeded.
        await elsewhere(`DROP TABLE "${store.schema}"."test_notes__replay"`);
        const error = await staging.swap({ name: 'read-models', position: '5' }).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(Error);
        for (const collection of live) expect(await ids(collection)).to.deep.equal(['old']);
        expect(await store.checkpoints.load('read-models')).to.equal('1');
      });

      it('refuses to swap when the checkpoint moved, checked inside the swap, and drops what it built', async () => {
        const store = await openStore();
        const live = await seedLive(store);
        const staging = await store.staging();
        const staged = [staging.collection(taskProjection), staging.collection(notesProjection)];
        await staging.applyBatch(staged as never[], [at(5, 'TaskCreated', created('new'))]);
        await store.applyBatch(live as never[], [at(2, 'TaskCreated', created('meanwhile'))], 'read-models');
        const error = await staging.swap({ name: 'read-models', position: '5', expected: '1' }).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(CheckpointMovedError);
        expect(error).to.include({ expected: '1', actual: '2' });
        for (const collection of live) expect(await ids(collection)).to.deep.equal(['old', 'meanwhile']);
        await staging.discard();
        expect(await tablesOf(store)).to.deep.equal(['test_notes', 'test_notes__counts', 'test_tasks', 'test_tasks__counts']);
      });
    });

    describe('layout', () => {
      it('lays a table out again when its projection indexes, searches or counts otherwise, keeping every document', async () => {
        let store = await openStore();
        await store.collection(taskProjection).apply([
          at(1, 'TaskCreated', created('a', { status: 'Waiting' })),
          at(2, 'TaskCreated', created('b', { status: 'done' })),
          at(3, 'TaskCreated', created('c', { status: 'waiting too' })),
          ...Array.from({ length: 30 }, (_, i) => at(10 + i, 'TaskCreated', created(`z${i}`))),
        ]);
        store = await openStore(store);
        const changed: Projection<TaskDoc> = { ...taskProjection, indexes: [['points'], ['status', 'points']], search: ['title', 'status'] };
        const tasks = store.collection(changed) as PostgresDocumentCollection<TaskDoc>;
        const search: ListQuery = all({ filters: [{ op: 'contains', fields: ['status'], text: 'WAIT' }] });
        expect(await ids(tasks, search)).to.deep.equal(['a', 'c']);
        expect((await tasks.explain(search)).join('\n')).to.contain('s1 ~~');
        expect((await tasks.list(all({ order: 'desc', limit: 3 }))).items.map((doc) => doc.id)).to.deep.equal(['z29', 'z28', 'z27']);
        expect((await tasks.list(all({ filters: [{ op: 'eq', field: 'status', value: 'done' }] }))).total).to.equal(1);
        await tasks.apply([at(40, 'TaskCreated', created('d', { status: 'wait' }))]);
        expect(await ids(tasks, search)).to.deep.equal(['a', 'c', 'd']);
        expect((await tasks.list(all())).total).to.equal(34);

        // Only the kept totals change: counted again, rows kept.
        store = await openStore(store);
        const counted = store.collection({ ...changed, totals: [['points']] }) as PostgresDocumentCollection<TaskDoc>;
        const onePoint = all({ filters: [{ op: 'eq', field: 'points', value: 1 }] });
        expect((await counted.list(onePoint)).total).to.equal(34);
        expect((await counted.explain(onePoint)).join('\n')).to.contain('test_tasks__counts');
      });

      it('orders documents by creating position numerically, of any length', async () => {
        const store = await openStore();
        const tasks = store.collection(taskProjection);
        const positions = ['9', '10', '99999999999999999999', '100000000000000000000', '1'.padEnd(40, '0'), '1'.padEnd(60, '0')];
        await tasks.apply([...positions].reverse().map((position, i) => at(position, 'TaskCreated', created(`p${positions.length - 1 - i}`))));
        expect(await ids(tasks)).to.deep.equal(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
        expect((await tasks.listCreatedAfter(COMPANY, '99999999999999999999', 10)).map((doc) => doc.id)).to.deep.equal(['p3', 'p4', 'p5']);
        expect(await tasks.listCreatedAfter(COMPANY, '1'.padEnd(61, '0'), 10)).to.deep.equal([]);
      });

      it('is prepared once by processes starting at once, and refused when a newer release migrated it', async () => {
        const schema = `rm_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
        const starting = await Promise.all(Array.from({ length: 4 }, () => stores.open({ schema })));
        opened.push(...starting);
        await Promise.all(starting.map(({ store }) => store.collection(taskProjection).apply([at(1, 'TaskCreated', created('a'))])));
        expect(await ids(starting[3]!.store.collection(taskProjection))).to.deep.equal(['a']);
        await elsewhere(`INSERT INTO "${schema}".read_model_migrations (version, name) VALUES (99, 'from the future')`);
        const refused = await stores.open({ schema }).catch((e: unknown) => e);
        expect(refused).to.be.instanceOf(ReadModelSchemaTooNewError);
        expect((refused as Error).message).to.contain('version 99');
      });
    });

    describe('queries answered by indexes (EXPLAIN)', () => {
      let tasks: PostgresDocumentCollection<TaskDoc>;
      /** Kept for the whole block (the others' stores go after each test). */
      let fixture: PostgresReadModelFixture | null = null;
      const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
      before(async function () {
        this.timeout(120_000);
        fixture = await stores.open();
        tasks = fixture.store.collection(taskProjection) as PostgresDocumentCollection<TaskDoc>;
        // Three companies; the one queried holds a sixth of the documents.
        let position = 0;
        for (const [companyId, count] of [[COMPANY, 2000], ['co-2', 5000], ['co-3', 5000]] as const) {
          const events = Array.from({ length: count }, (_, i) =>
            at(++position, 'TaskCreated', created(`t${i}`, { title: `Task ${words[i % 8]} ${i}`, status: i % 3 === 0 ? 'done' : 'open', at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString() }), companyId),
          );
          for (let i = 0; i < events.length; i += 1000) await tasks.apply(events.slice(i, i + 1000));
        }
        // What autovacuum does in production: statistics, the visibility map, and the GIN index's pending entries merged.
        await elsewhere(`VACUUM ANALYZE "${fixture.schema}".test_tasks`);
      });
      after(async () => {
        await fixture?.dispose();
      });
      const plan = async (filters: ListQuery['filters'], over: Partial<ListQuery> = {}) => (await tasks.explain(all({ filters, limit: 20, ...over }))).join('\n');

      it('lists a company in creation order from its index, and reads its total from the counts', async () => {
        for (const order of ['asc', 'desc'] as const) {
          const text = await plan([], { order, page: 50 });
          expect(text).to.match(/Index Scan (Backward )?using rm_\w+_0 on test_tasks t\s+Index Cond: \(company = \d+\)/);
          expect(text).to.match(/Index Scan using rm_\w+_counts_pkey on test_tasks__counts\s+Index Cond: \(\(company = \d+\) AND \(key = '0:\[\]'::text\)\)/);
          expect(text).to.not.match(/Seq Scan|Sort/);
        }
      });

      it('filters on an indexed field through its index, reading a kept total from the counts and counting a range over the index', async () => {
        const done = await plan([{ op: 'eq', field: 'status', value: 'done' }], { page: 5 });
        // In index order: no sort of the matches for the page.
        expect(done).to.match(/Index Scan using rm_\w+_1 on test_tasks t\s+Index Cond: \(\(company = \d+\) AND .*'\{status\}'.* = 'string:done'::text\)\)/);
        expect(done).to.contain(`key = '1:["done"]'`);
        expect(done).to.not.match(/Seq Scan|Sort/);
        const since = await plan([{ op: 'gt', field: 'createdAt', value: '2026-01-02T00:00:00.000Z' }]);
        // The total (the second subplan) is counted over the range of the field's index.
        const counted = since.split('InitPlan')[2]!;
        expect(counted).to.match(/(Index Scan using|Bitmap Index Scan on) rm_\w+_2\b[^\n]*\s+Index Cond: \(\(company = \d+\) AND .*'\{createdAt\}'.* > 'string:2026-01-02T00:00:00.000Z'::text\)/);
        expect(since).to.not.contain('Seq Scan');
      });

      it('finds a rare search of 3 or more characters through the trigram index, counting its matches only', async () => {
        const rare = await plan([{ op: 'contains', fields: ['title'], text: 'Golf 1998' }]);
        expect(rare.match(/Bitmap Index Scan on rm_\w+_texts\s+Index Cond: \(s0 ~~ '%golf 1998%'::text\)/g)).to.have.length(2);
        expect(rare).to.not.contain('Seq Scan');
        const found = await tasks.list(all({ filters: [{ op: 'contains', fields: ['title'], text: 'Golf 1998' }] }));
        expect(found.items.map((doc) => doc.title)).to.deep.equal(['Task golf 1998']);
        expect(found.total).to.equal(1);
      });

      it('reads a short or common search from the company’s index, page and count', async () => {
        for (const text of ['39', 'task']) {
          const scan = await plan([{ op: 'contains', fields: ['title'], text }]);
          expect(scan).to.match(/Index Scan using rm_\w+_0 on test_tasks t\s+Index Cond: \(company = \d+\)/);
          expect(scan).to.match(/(Index Scan using|Bitmap Index Scan on) rm_\w+_0( on test_tasks t_1)?\s+Index Cond: \(company = \d+\)/);
          expect(scan).to.not.contain('Seq Scan');
        }
      });
    });

    describe('search', () => {
      /** The memory adapter, the reference, beside PostgreSQL: the same events, the same queries. */
      const both = async (titles: readonly string[], statuses: readonly string[] = []) => {
        const memory = new MemoryReadModelStore().collection(taskProjection);
        const postgres = (await openStore()).collection(taskProjection);
        const events = titles.map((title, i) => at(i + 1, 'TaskCreated', created(`t${i}`, { title, status: statuses[i] ?? 'open' })));
        await memory.apply(events);
        await postgres.apply(events);
        return async (fields: readonly string[], text: string) => {
          const query = all({ filters: [{ op: 'contains', fields, text }] });
          const [expected, actual] = [await memory.list(query), await postgres.list(query)];
          expect(actual.items.map((doc) => doc.id), `${fields.join('+')}: ${JSON.stringify(text)}`).to.deep.equal(expected.items.map((doc) => doc.id));
          expect(actual.total).to.equal(expected.total);
          return actual.items.map((doc) => doc.id);
        };
      };

      it('lower-cases as JavaScript does, letters outside ASCII included, in searched fields and others', async () => {
        const words = ['İstanbul', 'ISTANBUL', 'Straße', 'STRASSE', 'ẞ grand', 'ΟΔΟΣ', 'ΣΑΣ', 'Ärger', 'ärger', 'ÆØÅ', 'Ǆ digraph', 'ﬁne ligature'];
        // `title` has a stored text; `status` is lower-cased by the server.
        const search = await both(words, words);
        for (const fields of [['title'], ['status'], ['title', 'status']]) {
          expect(await search(fields, 'i̇stanbul')).to.deep.equal(['t0']);
          expect(await search(fields, 'İSTANBUL')).to.deep.equal(['t0']);
          expect(await search(fields, 'istanbul')).to.deep.equal(['t1']);
          expect(await search(fields, 'ß')).to.deep.equal(['t2', 't4']);
          expect(await search(fields, 'ss')).to.deep.equal(['t3']);
          expect(await search(fields, 'σ')).to.deep.equal(['t6']);
          expect(await search(fields, 'ς')).to.deep.equal(['t5', 't6']);
          expect(await search(fields, 'ÄRG')).to.deep.equal(['t7', 't8']);
          for (const text of ['æøå', 'ǆ', 'ǅ', 'fine', 'ﬁ', 'ΟΔΟΣ', 'οδος']) await search(fields, text);
        }
      });

      it('takes every character literally: LIKE wildcards and its escape, quotes, regular-expression characters', async () => {
        const search = await both(
          ['100% sure', '100 percent', 'a_b', 'axb', 'say "hi"', "it's", 'back\\slash', 'caret^{x}', 'dot.star*', 'pipe|(x)', 'a\\%b'],
          ['', '', '', '', '', '', '', '', '', '', ''],
        );
        for (const fields of [['title'], ['title', 'status']]) {
          expect(await search(fields, '0%')).to.deep.equal(['t0']);
          expect(await search(fields, '0% s')).to.deep.equal(['t0']);
          expect(await search(fields, 'a_b')).to.deep.equal(['t2']);
          expect(await search(fields, '_')).to.deep.equal(['t2']);
          expect(await search(fields, '"hi"')).to.deep.equal(['t4']);
          expect(await search(fields, "t's")).to.deep.equal(['t5']);
          expect(await search(fields, 'k\\s')).to.deep.equal(['t6']);
          expect(await search(fields, '\\')).to.deep.equal(['t6', 't10']);
          expect(await search(fields, '\\%b')).to.deep.equal(['t10']);
          expect(await search(fields, '^{x}')).to.deep.equal(['t7']);
          expect(await search(fields, '.star*')).to.deep.equal(['t8']);
          expect(await search(fields, '|(x)')).to.deep.equal(['t9']);
        }
      });

      it('finds what a plain scan finds, for random texts and searches of 1 to 5 characters (fast-check)', async () => {
        const store = await openStore();
        const tasks = store.collection(taskProjection);
        const alphabet = ['a', 'b', 'A', 'B', 'ä', 'Ä', 'ß', 'İ', 'ı', 'Σ', 'ς', ' ', '%', '_', '\\', '"', "'", '😀', '1'];
        const char = fc.constantFrom(...alphabet);
        const text = (max: number) => fc.array(char, { minLength: 0, maxLength: max }).map((chars) => chars.join(''));
        let position = 0;
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.record({ title: text(10), status: text(4) }), { minLength: 1, maxLength: 25 }),
            fc.array(fc.array(char, { minLength: 1, maxLength: 5 }).map((chars) => chars.join('')), { minLength: 1, maxLength: 6 }),
            async (docs, searches) => {
              const companyId = `co-${randomUUID()}`;
              await tasks.apply(docs.map((doc, i) => at(++position, 'TaskCreated', created(`t${i}`, doc), companyId)));
              for (const fields of [['title'], ['title', 'status']] as const) {
                for (const search of searches) {
                  const needle = search.toLowerCase();
                  const expected = docs
                    .map((doc, i) => ({ doc, id: `t${i}` }))
                    .filter(({ doc }) => fields.some((field) => doc[field].toLowerCase().includes(needle)))
                    .map(({ id }) => id);
                  const found = await tasks.list({ companyId, filters: [{ op: 'contains', fields, text: search }], page: 1, limit: 100, order: 'asc' });
                  expect(found.items.map((doc) => doc.id), `${fields.join('+')}: ${JSON.stringify(search)}`).to.deep.equal(expected);
                  expect(found.total).to.equal(expected.length);
                }
              }
            },
          ),
          { numRuns: 40, seed: 20260601 },
        );
      });
    });
  });
}
