import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { ReadModelsLostError, SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import type { SqliteDocumentCollection } from '../../src/adapters/sqlite/SqliteDocumentCollection.js';
import { MemoryReadModelStore } from '../../src/adapters/memory/MemoryReadModelStore.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { CheckpointMovedError, type DocumentCollection, type ListQuery, type Projection } from '../../src/application/ports/ReadModelStore.js';
import { ProjectionRunner } from '../../src/application/subscriptions/ProjectionRunner.js';
import { taskProjection, type TaskCreatedData, type TaskDoc } from '../support/taskProjection.js';
import { anEvent } from '../support/events.js';
import { captureLogger } from '../support/captureLogger.js';
import { tempDir } from '../support/tempStore.js';

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

describe('SqliteReadModelStore', () => {
  let dir: ReturnType<typeof tempDir>;
  let file: string;
  const open: SqliteReadModelStore[] = [];
  const openStore = (): SqliteReadModelStore => {
    const store = SqliteReadModelStore.open(file);
    open.push(store);
    return store;
  };

  beforeEach(() => {
    dir = tempDir('chronicle-sqlite-rm-');
    file = join(dir.path, 'read-models.sqlite');
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    dir.dispose();
  });

  describe('a batch and its checkpoint', () => {
    it('commit together, or not at all', async () => {
      const store = openStore();
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
      // The first collection had applied the batch when the second failed: rolled back with it.
      expect(await ids(tasks)).to.deep.equal(['a']);
      expect(await store.checkpoints.load('read-models')).to.equal('1');
    });

    it('keeps the id of the event at the checkpoint (the last one applied, or the replay’s), for the projector’s check', async () => {
      const store = openStore();
      const tasks = store.collection(taskProjection);
      const batch = [at(1, 'TaskCreated', created('a')), at(2, 'TaskCreated', created('b'))];
      await store.applyBatch([tasks as never], batch, 'read-models');
      expect(await store.checkpoints.loadEventId!('read-models')).to.equal(batch[1]!.id);
      const staging = await store.staging();
      await staging.swap({ name: 'read-models', position: '9', eventId: 'event-at-9', expected: '2' });
      expect([await store.checkpoints.load('read-models'), await store.checkpoints.loadEventId!('read-models')]).to.deep.equal(['9', 'event-at-9']);
    });

    it('opens a file of the release before (checkpoints without event ids): its checkpoint kept, no id until the next batch', async () => {
      const old = new Database(file);
      // The file as the release before left it: two migrations run, a checkpoint saved.
      old.exec(`CREATE TABLE checkpoints (name TEXT PRIMARY KEY, position TEXT NOT NULL);
        CREATE TABLE read_model_tables (name TEXT PRIMARY KEY, layout TEXT NOT NULL);
        CREATE TABLE read_model_companies (cid INTEGER PRIMARY KEY, company_id TEXT NOT NULL UNIQUE);
        CREATE TABLE leases (name TEXT PRIMARY KEY, owner TEXT NOT NULL, role TEXT NOT NULL, pid INTEGER NOT NULL, host TEXT NOT NULL,
          scope TEXT, acquired_at TEXT NOT NULL, renewed_at TEXT NOT NULL);
        INSERT INTO checkpoints (name, position) VALUES ('read-models', '4');
        PRAGMA user_version = 2;`);
      old.close();
      const store = openStore();
      expect(await store.checkpoints.load('read-models')).to.equal('4');
      expect(await store.checkpoints.loadEventId!('read-models')).to.equal(null);
      const next = at(5, 'TaskCreated', created('e'));
      await store.applyBatch([store.collection(taskProjection) as never], [next], 'read-models');
      expect(await store.checkpoints.loadEventId!('read-models')).to.equal(next.id);
    });

    it('skips events at or before the checkpoint another process saved', async () => {
      const first = openStore();
      const second = openStore();
      const seen: string[] = [];
      const spying: Projection<TaskDoc> = {
        ...taskProjection,
        evolve: (doc, event) => {
          seen.push(event.position);
          return taskProjection.evolve(doc, event);
        },
      };
      const events = [1, 2, 3, 4].map((n) => at(n, 'TaskCreated', created(`t${n}`)));
      await first.applyBatch([first.collection(taskProjection) as never], events.slice(0, 3), 'read-models');
      await second.applyBatch([second.collection(spying) as never], events, 'read-models');
      expect(seen).to.deep.equal(['4']);
      expect(await first.checkpoints.load('read-models')).to.equal('4');
      // A batch wholly behind the checkpoint changes nothing and keeps it.
      await first.applyBatch([first.collection(taskProjection) as never], events.slice(0, 2), 'read-models');
      expect(await second.checkpoints.load('read-models')).to.equal('4');
    });

    it('lets a restart resume from the checkpoint, applying nothing again', async () => {
      const logDir = tempDir('chronicle-sqlite-log-');
      const eventStore = SqliteEventStore.open(join(logDir.path, 'chronicle.sqlite'));
      try {
        for (let i = 0; i < 25; i++) {
          await eventStore.append(`task-${i}`, [anEvent('TaskCreated', created(`t${i}`), COMPANY)], 'no_stream');
        }
        let store = openStore();
        let runner = new ProjectionRunner({ eventStore, readModels: store, collections: [store.collection(taskProjection) as never], logger: captureLogger() });
        await runner.start();
        expect(runner.eventsApplied).to.equal(25);
        await runner.stop();
        await store.close();

        store = openStore();
        const logger = captureLogger();
        runner = new ProjectionRunner({ eventStore, readModels: store, collections: [store.collection(taskProjection) as never], logger });
        await runner.start();
        expect(runner.eventsApplied).to.equal(0);
        expect(runner.position).to.equal(await eventStore.headPosition());
        expect(logger.lines.map((line) => line.msg)).to.include('read models resumed at the head of the log');
        expect((await store.collection(taskProjection).list(all())).total).to.equal(25);
        const { position } = await eventStore.append('task-new', [anEvent('TaskCreated', created('new'), COMPANY)], 'no_stream');
        expect(await runner.waitFor(position, 5000)).to.equal(true);
        expect(runner.eventsApplied).to.equal(1);
        await runner.stop();
      } finally {
        await eventStore.close();
        logDir.dispose();
      }
    });
  });

  describe('batches sharing a commit (shareCommitMs)', () => {
    const shared = (shareCommitMs: number): SqliteReadModelStore => {
      const store = SqliteReadModelStore.open(file, { shareCommitMs });
      open.push(store);
      return store;
    };
    /** What another connection (another process) sees: the committed task ids and checkpoint. */
    const committed = () => {
      const reader = new Database(file, { readonly: true });
      try {
        const tasks = (reader.prepare('SELECT id FROM test_tasks ORDER BY id').all() as { id: string }[]).map((row) => row.id);
        const checkpoint = reader.prepare("SELECT position FROM checkpoints WHERE name = 'read-models'").pluck().get() ?? null;
        return { tasks, checkpoint };
      } finally {
        reader.close();
      }
    };
    const failOn = (id: string): Projection<TaskDoc> => ({
      ...taskProjection,
      evolve: (doc, event) => {
        if ((event.data as { id?: string }).id === id) throw new Error(`projection failed on ${id}`);
        return taskProjection.evolve(doc, event);
      },
    });

    it('are read through the store at once, and by other connections once committed', async () => {
      const store = shared(60_000);
      const tasks = store.collection(taskProjection);
      await store.applyBatch([tasks as never], [at(1, 'TaskCreated', created('a'))], 'read-models');
      await store.applyBatch([tasks as never], [at(2, 'TaskCreated', created('b'))], 'read-models');
      expect(await ids(tasks)).to.deep.equal(['a', 'b']);
      expect(await store.checkpoints.load('read-models')).to.equal('2');
      expect(committed()).to.deep.equal({ tasks: [], checkpoint: null });
      store.commitShared();
      expect(committed()).to.deep.equal({ tasks: ['a', 'b'], checkpoint: '2' });
    });

    it('commit by themselves once the time is up', async () => {
      const store = shared(10);
      const tasks = store.collection(taskProjection);
      await store.applyBatch([tasks as never], [at(1, 'TaskCreated', created('a'))], 'read-models');
      const deadline = Date.now() + 5_000;
      while (committed().checkpoint === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(committed()).to.deep.equal({ tasks: ['a'], checkpoint: '1' });
      // The next batch opens the next shared transaction.
      await store.applyBatch([tasks as never], [at(2, 'TaskCreated', created('b'))], 'read-models');
      while (committed().checkpoint === '1' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(committed()).to.deep.equal({ tasks: ['a', 'b'], checkpoint: '2' });
    });

    it('are committed by a close', async () => {
      const store = shared(60_000);
      await store.applyBatch([store.collection(taskProjection) as never], [at(1, 'TaskCreated', created('a'))], 'read-models');
      await store.close();
      expect(committed()).to.deep.equal({ tasks: ['a'], checkpoint: '1' });
    });

    it('keep theirs when one fails: it alone is rolled back', async () => {
      const store = shared(60_000);
      const lost: Error[] = [];
      store.onLost((error) => lost.push(error));
      const tasks = store.collection(failOn('boom'));
      await store.applyBatch([tasks as never], [at(1, 'TaskCreated', created('a'))], 'read-models');
      const error = await store
        .applyBatch([tasks as never], [at(2, 'TaskCreated', created('b')), at(3, 'TaskCreated', created('boom'))], 'read-models')
        .catch((e: unknown) => e);
      expect(error).to.be.instanceOf(Error).with.property('message', 'projection failed on boom');
      expect(await ids(tasks)).to.deep.equal(['a']);
      expect(await store.checkpoints.load('read-models')).to.equal('1');
      await store.applyBatch([tasks as never], [at(4, 'TaskCreated', created('c'))], 'read-models');
      store.commitShared();
      expect(committed()).to.deep.equal({ tasks: ['a', 'c'], checkpoint: '4' });
      expect(lost).to.deep.equal([]);
    });

    it('forget the company key a failed batch assigned, so no other company gets its documents', async () => {
      const store = shared(60_000);
      const tasks = store.collection(failOn('boom'));
      await store.applyBatch([tasks as never], [at(1, 'TaskCreated', created('a'))], 'read-models');
      // Company X gets the next key, then the batch fails: the key's row is rolled back.
      await store
        .applyBatch([tasks as never], [at(2, 'TaskCreated', created('x1'), 'co-x'), at(3, 'TaskCreated', created('boom'), 'co-x')], 'read-models')
        .catch(() => undefined);
      // Company Y is given that same key now.
      await store.applyBatch([tasks as never], [at(4, 'TaskCreated', created('y1'), 'co-y')], 'read-models');
      expect(await ids(tasks, { companyId: 'co-x' })).to.deep.equal([]);
      expect(await ids(tasks, { companyId: 'co-y' })).to.deep.equal(['y1']);
      store.commitShared();
      expect(await ids(tasks, { companyId: 'co-x' })).to.deep.equal([]);
      expect(await ids(tasks, { companyId: 'co-y' })).to.deep.equal(['y1']);
    });

    it('that SQLite rolled back are lost: the listeners are told, and later batches refused', async () => {
      const store = shared(60_000);
      const lost: Error[] = [];
      store.onLost((error) => lost.push(error));
      const tasks = store.collection(taskProjection);
      await store.applyBatch([tasks as never], [at(1, 'TaskCreated', created('a'))], 'read-models');
      await store.applyBatch([tasks as never], [at(2, 'TaskCreated', created('b'))], 'read-models');
      // As SQLite does on an I/O error or a full disk.
      store.db.exec('ROLLBACK');
      store.commitShared();
      expect(lost).to.have.length(1);
      expect(lost[0]).to.be.instanceOf(ReadModelsLostError).with.property('batches', 2);
      expect(lost[0]!.message).to.match(/lost 2 applied batches before their commit/);
      const refused = await store.applyBatch([tasks as never], [at(3, 'TaskCreated', created('c'))], 'read-models').catch((e: unknown) => e);
      expect(refused).to.equal(lost[0]);
      expect(committed()).to.deep.equal({ tasks: [], checkpoint: null });
    });

    it('lost in a crash are applied again from the log at the next start', async () => {
      const logDir = tempDir('chronicle-sqlite-log-');
      const eventStore = SqliteEventStore.open(join(logDir.path, 'chronicle.sqlite'));
      try {
        for (let i = 0; i < 10; i++) await eventStore.append(`task-${i}`, [anEvent('TaskCreated', created(`t${i}`), COMPANY)], 'no_stream');
        let store = shared(60_000);
        let runner = new ProjectionRunner({ eventStore, readModels: store, collections: [store.collection(taskProjection) as never], logger: captureLogger() });
        await runner.start();
        store.commitShared();
        const { position } = await eventStore.append('task-late', [anEvent('TaskCreated', created('late'), COMPANY)], 'no_stream');
        expect(await runner.waitFor(position, 5000)).to.equal(true);
        expect((await store.collection(taskProjection).list(all())).total).to.equal(11);
        await runner.stop();
        // The process dies before the shared commit: SQLite rolls the open transaction back.
        store.db.close();
        expect(committed().tasks).to.have.length(10);

        store = shared(60_000);
        runner = new ProjectionRunner({ eventStore, readModels: store, collections: [store.collection(taskProjection) as never], logger: captureLogger() });
        await runner.start();
        expect(runner.eventsApplied).to.equal(1);
        expect((await store.collection(taskProjection).list(all())).total).to.equal(11);
        await runner.stop();
      } finally {
        await eventStore.close();
        logDir.dispose();
      }
    });
  });

  describe('other processes on the same file', () => {
    it('read while one writes, each from a snapshot (WAL)', async () => {
      const writer = openStore();
      const tasks = writer.collection(taskProjection);
      await tasks.apply([at(1, 'TaskCreated', created('a'))]);
      const reader = new Database(file, { readonly: true });
      try {
        const count = reader.prepare('SELECT count(*) AS n FROM test_tasks');
        reader.exec('BEGIN');
        expect(count.get()).to.deep.equal({ n: 1 });
        // A write commits while the reader's transaction is open: it goes on seeing its snapshot.
        await tasks.apply([at(2, 'TaskCreated', created('b'))]);
        expect(count.get()).to.deep.equal({ n: 1 });
        reader.exec('COMMIT');
        expect(count.get()).to.deep.equal({ n: 2 });
        // A write transaction in progress does not keep readers out.
        writer.db.exec('BEGIN IMMEDIATE');
        expect(count.get()).to.deep.equal({ n: 2 });
        writer.db.exec('ROLLBACK');
      } finally {
        reader.close();
      }
      const other = openStore();
      expect(await ids(other.collection(taskProjection))).to.deep.equal(['a', 'b']);
    });
  });

  describe('totals kept in counts', () => {
    const done = { op: 'eq' as const, field: 'status', value: 'done' };
    const seed = async (store: SqliteReadModelStore) =>
      store.collection(taskProjection).apply(Array.from({ length: 9 }, (_, i) => at(i + 1, 'TaskCreated', created(`t${i}`, { status: i % 3 === 0 ? 'done' : 'open' }))));

    it('counts a table laid out before totals existed once when it opens, keeping its rows and indexes', async () => {
      const before = openStore();
      await seed(before);
      const indexes = () => before.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'test_tasks'").all();
      const kept = indexes();
      // As a release before counts left it: no counts table, a layout without totals.
      before.db.exec('DROP TABLE test_tasks__counts');
      before.db.exec("UPDATE read_model_tables SET layout = json_remove(layout, '$.totals') WHERE name = 'test_tasks'");
      await before.close();
      const after = openStore();
      const tasks = after.collection(taskProjection);
      expect((await tasks.list(all({ filters: [done] }))).total).to.equal(3);
      expect((await tasks.list(all())).total).to.equal(9);
      expect(after.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'test_tasks'").all()).to.deep.equal(kept);
      await tasks.apply([at(10, 'TaskDeleted', { id: 't0' })]);
      expect((await tasks.list(all({ filters: [done] }))).total).to.equal(2);
    });

    it('counts a search again in one connection after another changed the company’s documents', async () => {
      const writer = openStore();
      await seed(writer);
      const reader = openStore().collection(taskProjection);
      const search = all({ filters: [{ op: 'contains', fields: ['title'], text: 'task t' }], limit: 1 });
      expect((await reader.list(search)).total).to.equal(9);
      expect((await reader.list({ ...search, page: 2 })).total).to.equal(9);
      await writer.collection(taskProjection).apply([at(10, 'TaskCreated', created('t9')), at(11, 'TaskCreated', created('t10'))]);
      expect((await reader.list(search)).total).to.equal(11);
      // Another company's change leaves this one's count as it was (and right).
      await writer.collection(taskProjection).apply([at(12, 'TaskCreated', created('x'), 'co-2')]);
      expect((await reader.list(search)).total).to.equal(11);
    });

    it('swaps a replay’s counts in with its tables', async () => {
      const store = openStore();
      await seed(store);
      const staging = await store.staging();
      const staged = staging.collection(taskProjection);
      await staging.applyBatch([staged as never], [at(20, 'TaskCreated', created('only', { status: 'done' }))]);
      const live = store.collection(taskProjection);
      expect((await live.list(all({ filters: [done] }))).total).to.equal(3);
      await staging.swap({ name: 'read-models', position: '20' });
      expect((await live.list(all({ filters: [done] }))).total).to.equal(1);
      expect((await live.list(all())).total).to.equal(1);
    });
  });

  describe('replay staging', () => {
    const seedLive = async (store: SqliteReadModelStore) => {
      const live = [store.collection(taskProjection), store.collection(notesProjection)];
      await store.applyBatch(live as never[], [at(1, 'TaskCreated', created('old'))], 'read-models');
      return live;
    };

    it('serves the live tables, to this and other connections, until one transaction swaps every staged one in', async () => {
      const store = openStore();
      const live = await seedLive(store);
      // Searched before the swap (the search plan's statistics are then bound to the live full-text table).
      expect(await ids(live[0]!, { filters: [{ op: 'contains', fields: ['title'], text: 'TASK O' }] })).to.deep.equal(['old']);
      const staging = await store.staging();
      const staged = [staging.collection(taskProjection), staging.collection(notesProjection)];
      await staging.applyBatch(staged as never[], [at(5, 'TaskCreated', created('new'))]);
      const elsewhere = openStore();
      for (const collection of [...live, elsewhere.collection(taskProjection), elsewhere.collection(notesProjection)]) {
        expect(await ids(collection)).to.deep.equal(['old']);
      }
      await staging.swap({ name: 'read-models', position: '5', expected: '1' });
      for (const collection of [...live, elsewhere.collection(taskProjection), elsewhere.collection(notesProjection)]) {
        expect(await ids(collection)).to.deep.equal(['new']);
      }
      expect(await elsewhere.checkpoints.load('read-models')).to.equal('5');
      const tables = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'test%'").all();
      expect(tables.map((row) => (row as { name: string }).name).sort()).to.deep.equal(['test_notes', 'test_tasks', 'test_tasks__fts', 'test_notes__fts', 'test_tasks__counts', 'test_notes__counts'].sort().concat(
        ['test_notes__fts_config', 'test_notes__fts_data', 'test_notes__fts_docsize', 'test_notes__fts_idx', 'test_tasks__fts_config', 'test_tasks__fts_data', 'test_tasks__fts_docsize', 'test_tasks__fts_idx'],
      ).sort());
      // The swapped-in tables take the live ones' place for good: written to and searched as before.
      await store.applyBatch(live as never[], [at(6, 'TaskRenamed', { id: 'new', title: 'Renamed again', at: '2026-02-01T00:00:00.000Z' })], 'read-models');
      expect(await ids(live[0]!, { filters: [{ op: 'contains', fields: ['title'], text: 'AGAIN' }] })).to.deep.equal(['new']);
      expect(await ids(live[0]!, { filters: [{ op: 'contains', fields: ['title'], text: 'TASK O' }] })).to.deep.equal([]);
    });

    it('goes on answering searches through the full-text table after a swap, here and in another connection', async () => {
      const store = openStore();
      const elsewhere = openStore();
      const titles = (suffix: string) => Array.from({ length: 40 }, (_, i) => (i === 7 ? `Zebra ${suffix}` : `Task ${i}`));
      const tasks = store.collection(taskProjection) as SqliteDocumentCollection<TaskDoc>;
      await tasks.apply(titles('one').map((title, i) => at(i + 1, 'TaskCreated', created(`t${i}`, { title }))));
      const zebra = all({ filters: [{ op: 'contains', fields: ['title'], text: 'ZEBRA' }] });
      // `zeb` is in one title of 40: the plan starts from the full-text table, checked in the narrow index.
      expect(tasks.explain(zebra).count.join(' ')).to.match(/VIRTUAL TABLE INDEX .* USING COVERING INDEX rm_\w+_texts \(seq=\? AND company=\?\)/);
      const readers = [tasks, elsewhere.collection(taskProjection)];
      for (const reader of readers) expect((await reader.list(zebra)).items.map((doc) => doc.title)).to.deep.equal(['Zebra one']);
      const staging = await store.staging();
      const staged = staging.collection(taskProjection);
      await staging.applyBatch([staged as never], titles('two').map((title, i) => at(100 + i, 'TaskCreated', created(`t${i}`, { title }))));
      await staging.swap({ name: 'read-models', position: '139' });
      for (const reader of readers) expect((await reader.list(zebra)).items.map((doc) => doc.title)).to.deep.equal(['Zebra two']);
    });

    it('reads the first pages of a common text in creation order, stopping at the page, and a deep page from the full-text table', async () => {
      const store = openStore();
      const tasks = store.collection(taskProjection) as SqliteDocumentCollection<TaskDoc>;
      // `zebra` in one title of 4, `quagga` in one of 100: both found through the full-text table.
      const title = (i: number) => `${i % 4 === 0 ? 'Zebra' : 'Task'} ${i}${i === 50 ? ' quagga' : ''}`;
      await tasks.apply(Array.from({ length: 400 }, (_, i) => at(i + 1, 'TaskCreated', created(`t${i}`, { title: title(i) }))));
      const search = (text: string, page: number) => all({ filters: [{ op: 'contains', fields: ['title'], text }], page, limit: 10, order: 'desc' });
      const expected = (page: number) => Array.from({ length: 10 }, (_, k) => `t${396 - 4 * ((page - 1) * 10 + k)}`);

      const first = await tasks.list(search('ZEBRA', 1));
      expect(first.items.map((doc) => doc.id)).to.deep.equal(expected(1));
      expect(first.total).to.equal(100);
      expect(tasks.explain(search('ZEBRA', 1)).page.join(' ')).to.not.contain('VIRTUAL TABLE');
      expect(tasks.explain(search('ZEBRA', 1)).page.join(' ')).to.not.contain('TEMP B-TREE');
      expect(tasks.explain(search('ZEBRA', 1)).count.join(' ')).to.contain('VIRTUAL TABLE');

      const deep = await tasks.list(search('ZEBRA', 9));
      expect(deep.items.map((doc) => doc.id)).to.deep.equal(expected(9));
      expect(tasks.explain(search('ZEBRA', 9)).page.join(' ')).to.contain('VIRTUAL TABLE');
      expect((await tasks.list(search('ZEBRA', 11))).items).to.deep.equal([]);

      expect((await tasks.list(search('QUAGGA', 1))).items.map((doc) => doc.id)).to.deep.equal(['t50']);
      expect(tasks.explain(search('QUAGGA', 1)).page.join(' ')).to.contain('VIRTUAL TABLE');
    });

    it('changes nothing when the swap fails half-way', async () => {
      const store = openStore();
      const live = await seedLive(store);
      const staging = await store.staging();
      const staged = [staging.collection(taskProjection), staging.collection(notesProjection)];
      await staging.applyBatch(staged as never[], [at(5, 'TaskCreated', created('new'))]);
      // Another connection drops the second staged table: its rename fails after the first one's succeeded.
      const other = new Database(file);
      other.exec('DROP TABLE "test_notes__replay"');
      other.close();
      const error = await staging.swap({ name: 'read-models', position: '5' }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(Error);
      for (const collection of live) expect(await ids(collection)).to.deep.equal(['old']);
      expect(await store.checkpoints.load('read-models')).to.equal('1');
    });

    it('refuses to swap when the checkpoint moved, checked inside the swap', async () => {
      const store = openStore();
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
      expect(store.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE '%__replay%'").get()).to.deep.equal({ n: 0 });
    });
  });

  describe('layout', () => {
    it('lays a table out again when its projection indexes or searches other fields, keeping every document', async () => {
      let store = openStore();
      await store.collection(taskProjection).apply([
        at(1, 'TaskCreated', created('a', { status: 'Waiting' })),
        at(2, 'TaskCreated', created('b', { status: 'done' })),
        at(3, 'TaskCreated', created('c', { status: 'waiting too' })),
        ...Array.from({ length: 30 }, (_, i) => at(10 + i, 'TaskCreated', created(`z${i}`))),
      ]);
      await store.close();
      store = openStore();
      const changed: Projection<TaskDoc> = { ...taskProjection, indexes: [['points'], ['status', 'points']], search: ['title', 'status'] };
      const tasks = store.collection(changed) as SqliteDocumentCollection<TaskDoc>;
      const search: ListQuery = all({ filters: [{ op: 'contains', fields: ['status'], text: 'WAIT' }] });
      expect(await ids(tasks, search)).to.deep.equal(['a', 'c']);
      // Two statuses of 33 hold `wai`: found through the full-text table built for the new layout.
      expect(tasks.explain(search).page.join(' ')).to.contain('VIRTUAL TABLE');
      expect((await tasks.list(all({ order: 'desc', limit: 3 }))).items.map((doc) => doc.id)).to.deep.equal(['z29', 'z28', 'z27']);
      expect(await ids(tasks, { filters: [{ op: 'eq', field: 'points', value: 1 }] })).to.have.length(33);
      await tasks.apply([at(40, 'TaskCreated', created('d', { status: 'wait' }))]);
      expect(await ids(tasks, search)).to.deep.equal(['a', 'c', 'd']);
    });

    it('orders documents by creating position numerically, up to 40 digits', async () => {
      const store = openStore();
      const tasks = store.collection(taskProjection);
      const positions = ['9', '10', '99999999999999999999', '100000000000000000000', '1'.padEnd(40, '0')];
      await tasks.apply([...positions].reverse().map((position, i) => at(position, 'TaskCreated', created(`p${positions.length - 1 - i}`))));
      expect(await ids(tasks)).to.deep.equal(['p0', 'p1', 'p2', 'p3', 'p4']);
      expect((await tasks.listCreatedAfter(COMPANY, '99999999999999999999', 10)).map((doc) => doc.id)).to.deep.equal(['p3', 'p4']);
      expect(await tasks.listCreatedAfter(COMPANY, '1'.padEnd(41, '0'), 10)).to.deep.equal([]);
      const error = await tasks.apply([at('1'.padEnd(41, '0'), 'TaskCreated', created('too-far'))]).catch((e: unknown) => e);
      expect(String(error)).to.contain('Cannot order by position');
    });
  });

  describe('queries answered by indexes', () => {
    let tasks: SqliteDocumentCollection<TaskDoc>;
    beforeEach(async () => {
      tasks = openStore().collection(taskProjection) as SqliteDocumentCollection<TaskDoc>;
      await tasks.apply(Array.from({ length: 30 }, (_, i) => at(i + 1, 'TaskCreated', created(`t${i}`, { status: i % 3 === 0 ? 'done' : 'open' }))));
    });
    const plan = (filters: ListQuery['filters']) => tasks.explain(all({ filters }));

    it('lists a company in creation order from an index alone, and reads its total from the counts', () => {
      const { page, count } = plan([]);
      expect(page.join(' ')).to.match(/SEARCH t USING COVERING INDEX rm_\w+ \(company=\?\)/);
      expect(page.join(' ')).to.not.contain('TEMP B-TREE');
      expect(count.join(' ')).to.match(/SEARCH test_tasks__counts USING PRIMARY KEY \(company=\? AND key=\?\)/);
    });

    it('reads the total of a kept combination of equality filters from the counts, and counts any other', () => {
      const status = { op: 'eq' as const, field: 'status', value: 'done' };
      const owner = { op: 'eq' as const, field: 'owner.id', value: null };
      for (const filters of [[status], [owner, status]]) expect(plan(filters).count.join(' ')).to.contain('test_tasks__counts');
      for (const filters of [[owner], [status, { op: 'gt' as const, field: 'points', value: 1 }]]) {
        expect(plan(filters).count.join(' ')).to.not.contain('__counts');
      }
    });

    it('filters on an indexed field through its index, in order', () => {
      const { page, count } = plan([{ op: 'eq', field: 'status', value: 'done' }]);
      // Not reported as covering (the field is a generated column), but SQLite only seeks a
      // table row when it reads one of its columns.
      expect(page.join(' ')).to.match(/USING (COVERING )?INDEX rm_\w+ \(company=\? AND f\d=\?\)/);
      expect(page.join(' ')).to.not.contain('TEMP B-TREE');
      expect(count.join(' ')).to.contain('test_tasks__counts');
      // A total not kept is counted through the same index, reading the index alone.
      const counted = plan([{ op: 'eq', field: 'status', value: 'done' }, { op: 'hasAll', field: 'tags', values: [] }]).count;
      expect(counted.join(' ')).to.match(/USING (COVERING )?INDEX rm_\w+ \(company=\? AND f\d=\?\)/);
    });

    it('finds a search of 3 or more characters through its rarest trigrams, and a shorter or common one in the covering index', () => {
      // `t17` is in one title of 30: its trigram list is short.
      const rare = plan([{ op: 'contains', fields: ['title'], text: 'K T17' }]);
      expect(rare.page[1]).to.match(/^SCAN x VIRTUAL TABLE INDEX/);
      expect(rare.count.join(' ')).to.contain('VIRTUAL TABLE INDEX');
      // Every title holds `tas` and `ask`: reading the company's 30 texts costs less than 30 lookups.
      for (const text of ['task', 'ta']) {
        const scan = plan([{ op: 'contains', fields: ['title'], text }]);
        expect(scan.count.join(' ')).to.match(/USING COVERING INDEX rm_\w+ \(company=\?\)/);
        expect(scan.page.join(' ')).to.not.contain('TEMP B-TREE');
      }
    });
  });

  describe('search', () => {
    /** The memory adapter, the reference, beside SQLite: the same events, the same queries. */
    const both = async (titles: readonly string[], statuses: readonly string[] = []) => {
      const memory = new MemoryReadModelStore().collection(taskProjection);
      const sqlite = openStore().collection(taskProjection);
      const events = titles.map((title, i) => at(i + 1, 'TaskCreated', created(`t${i}`, { title, status: statuses[i] ?? 'open' })));
      await memory.apply(events);
      await sqlite.apply(events);
      return async (fields: readonly string[], text: string) => {
        const query = all({ filters: [{ op: 'contains', fields, text }] });
        const [expected, actual] = [await memory.list(query), await sqlite.list(query)];
        expect(actual.items.map((doc) => doc.id), `${fields.join('+')}: ${JSON.stringify(text)}`).to.deep.equal(expected.items.map((doc) => doc.id));
        expect(actual.total).to.equal(expected.total);
        return actual.items.map((doc) => doc.id);
      };
    };

    it('lower-cases as JavaScript does, letters outside ASCII included', async () => {
      const search = await both(['İstanbul', 'ISTANBUL', 'Straße', 'STRASSE', 'ẞ grand', 'ΟΔΟΣ', 'ΣΑΣ', 'Ärger', 'ärger', 'ÆØÅ', 'Ǆ digraph', 'ﬁne ligature']);
      for (const fields of [['title'], ['title', 'status']]) {
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

    it('takes every character literally: LIKE and GLOB wildcards, quotes, FTS5 operators, NUL', async () => {
      const search = await both(
        ['100% sure', '100 percent', 'a_b', 'axb', 'say "hi"', "it's", 'x AND y', 'x OR y', 'NEAR(a b)', 'col:umn', 'star*', 'back\\slash', 'nul\u0000inside', 'caret^{x}'],
        ['', '', '', '', '', '', '', '', '', '', '', '', 'nul\u0000too'],
      );
      for (const fields of [['title'], ['title', 'status']]) {
        expect(await search(fields, '0%')).to.deep.equal(['t0']);
        expect(await search(fields, '0% s')).to.deep.equal(['t0']);
        expect(await search(fields, 'a_b')).to.deep.equal(['t2']);
        expect(await search(fields, '"hi"')).to.deep.equal(['t4']);
        expect(await search(fields, '"')).to.deep.equal(['t4']);
        expect(await search(fields, "t's")).to.deep.equal(['t5']);
        expect(await search(fields, 'x and')).to.deep.equal(['t6']);
        expect(await search(fields, 'OR')).to.deep.equal(['t7']);
        expect(await search(fields, 'near(')).to.deep.equal(['t8']);
        expect(await search(fields, 'col:')).to.deep.equal(['t9']);
        expect(await search(fields, 'r*')).to.deep.equal(['t10']);
        expect(await search(fields, '*')).to.deep.equal(['t10']);
        expect(await search(fields, 'k\\s')).to.deep.equal(['t11']);
        expect(await search(fields, '^{x}')).to.deep.equal(['t13']);
        // The memory adapter joins the fields with NUL: a search holding one finds nothing.
        expect(await search(fields, 'l\u0000i')).to.deep.equal([]);
        expect(await search(fields, '\u0000')).to.deep.equal([]);
        expect(await search(fields, 'nul')).to.deep.equal(['t12']);
      }
    });
  });

  describe('compaction after an erasure', () => {
    // A full-text index keeps a deleted document's trigrams in its segments (a delete only
    // marks them) until they are merged: no whole-value byte scan finds them, so this looks
    // for one trigram that starts with a letter no other document's trigrams start with (the
    // index stores each term after the part it shares with the one before: here, none).
    const FRAGMENT = Buffer.from('zqj', 'utf8');
    const indexHoldsFragment = (): boolean => {
      const raw = new Database(file, { readonly: true });
      try {
        return raw
          .prepare<[], { block: Buffer | null }>('SELECT block FROM test_tasks__fts_data')
          .all()
          .some(({ block }) => block !== null && block.includes(FRAGMENT));
      } finally {
        raw.close();
      }
    };

    it('given a document deleted from a searched collection, the merge of its full-text index leaves none of its trigrams', async () => {
      const store = openStore();
      const tasks = store.collection(taskProjection);
      await store.applyBatch([tasks as never], [at(1, 'TaskCreated', created('gone', { title: 'Zqjv Wendelgard' }))], 'read-models');
      for (let batch = 0; batch < 5; batch++) {
        const events = Array.from({ length: 20 }, (_, i) => at(2 + batch * 20 + i, 'TaskCreated', created(`kept-${batch}-${i}`, { title: `Task number ${batch * 20 + i}` })));
        await store.applyBatch([tasks as never], events, 'read-models');
      }
      expect(indexHoldsFragment(), 'the index holds the trigram').to.equal(true);

      await store.applyBatch([tasks as never], [at(200, 'TaskDeleted', { id: 'gone', at: '2026-01-02T00:00:00.000Z' })], 'read-models');
      expect(await ids(tasks, { filters: [{ op: 'contains', fields: ['title'], text: 'zqj' }] })).to.deep.equal([]);
      expect(indexHoldsFragment(), 'a delete only marks it').to.equal(true);

      expect(await store.compact()).to.deep.equal({ walTruncated: true });
      expect(indexHoldsFragment(), 'merged away').to.equal(false);
      expect((await ids(tasks)).length).to.equal(100);
    });
  });
});
