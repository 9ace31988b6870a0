import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import type { MongoReadModelStore } from '../../src/adapters/mongodb/MongoReadModelStore.js';
import { skipLine } from '../support/integration.js';
import { taskProjection, type TaskCreatedData } from '../support/taskProjection.js';

/**
 * MongoDB's read-model layout against a real server: documents an earlier release
 * stored (no search keys, no totals) are found and counted the slower way until
 * the projector lays them out (`upgrade`), then through the keys and the kept
 * totals; the totals stay equal to a count across batches that create, move and
 * delete documents.
 */
const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  describe('MongoDB read models: layout and kept totals', function () {
    this.timeout(60_000);
    let store: MongoReadModelStore;
    let position = 1000;
    const event = (type: string, data: object, companyId: string): RecordedEvent => ({
      id: randomUUID(),
      stream: `task-${companyId}`,
      revision: 0,
      position: String(++position),
      type,
      data,
      metadata: { source: 'system', correlationId: 'c', companyId },
      recordedAt: new Date().toISOString(),
    });
    const created = (id: string, title: string, status: string, companyId: string) =>
      event('TaskCreated', { id, title, status, points: 1, tags: [], owner: null, at: '2026-01-01T00:00:00.000Z' } satisfies TaskCreatedData, companyId);

    beforeEach(async () => {
      const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
      store = await MongoReadModelStore.connect(mongoUrl, `chronicle_test_${randomUUID().slice(0, 8)}`);
    });
    afterEach(async () => {
      await store.dropDatabase();
      await store.close();
    });

    it('finds and counts an earlier release’s documents before and after the projector lays them out', async () => {
      const company = 'co-old';
      // As an earlier release stored them: the document, its key and creation key, nothing more.
      await store.database.collection('test_tasks').insertMany(
        ['Alpha', 'Beta', 'alphabet'].map((title, i) => ({
          _id: `${company}:t${i}` as never,
          _created: String(i + 1).padStart(40, '0'),
          id: `t${i}`,
          companyId: company,
          position: String(i + 1),
          title,
          status: 'open',
          points: 1,
          tags: [],
          owner: null,
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        })),
      );
      const tasks = store.collection(taskProjection);
      await store.init();
      const search = () => tasks.list({ companyId: company, filters: [{ op: 'contains', fields: ['title'], text: 'ALPH' }], page: 1, limit: 10, order: 'asc' });
      const all = () => tasks.list({ companyId: company, filters: [], page: 1, limit: 10, order: 'asc' });
      expect((await search()).items.map((doc) => doc.id)).to.deep.equal(['t0', 't2']);
      expect((await all()).total).to.equal(3);
      await store.upgrade();
      const laidOut = store.collection(taskProjection);
      expect(laidOut).to.equal(tasks);
      // Readers look at the layout again after a few seconds; a new store (a new process) at once.
      const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
      const reader = MongoReadModelStore.overDatabase(store.database).collection(taskProjection);
      const found = await reader.list({ companyId: company, filters: [{ op: 'contains', fields: ['title'], text: 'ALPH' }], page: 1, limit: 10, order: 'asc' });
      expect(found.items.map((doc) => doc.id)).to.deep.equal(['t0', 't2']);
      expect(found.items[0]).not.to.have.property('_g');
      expect((await reader.list({ companyId: company, filters: [], page: 1, limit: 10, order: 'asc' })).total).to.equal(3);
      expect((await store.database.collection('test_tasks__counts').findOne({ _id: company as never }))?.n).to.deep.include({ all: 3 });
    });

    it('keeps each company’s totals equal to a count as batches create, move and delete documents', async () => {
      const tasks = store.collection(taskProjection);
      await store.init();
      const companies = ['co-a', 'co-b'];
      const events: RecordedEvent[] = [];
      for (const company of companies) for (let i = 0; i < 40; i++) events.push(created(`t${i}`, `Task ${i}`, i % 3 === 0 ? 'done' : 'open', company));
      for (let i = 0; i < 40; i += 4) events.push(event('TaskMoved', { id: `t${i}`, status: 'done', owner: { id: 'o1', name: 'Ada' }, at: '2026-02-01T00:00:00.000Z' }, 'co-a'));
      for (let i = 1; i < 40; i += 5) events.push(event('TaskDeleted', { id: `t${i}` }, 'co-a'));
      for (let i = 0; i < events.length; i += 17) await store.applyBatch([tasks as never], events.slice(i, i + 17), 'read-models');
      const documents = store.database.collection('test_tasks');
      for (const company of companies) {
        for (const filters of [[], [{ op: 'eq' as const, field: 'status', value: 'done' }], [{ op: 'eq' as const, field: 'status', value: 'done' }, { op: 'eq' as const, field: 'owner.id', value: 'o1' }]]) {
          const listed = await tasks.list({ companyId: company, filters, page: 1, limit: 1, order: 'asc' });
          const mongoFilter: Record<string, unknown> = { companyId: company };
          for (const filter of filters) mongoFilter[filter.field] = filter.value;
          expect(listed.total, `${company} ${JSON.stringify(filters)}`).to.equal(await documents.countDocuments(mongoFilter));
        }
      }
      expect(await store.database.collection('test_tasks__counts').countDocuments({ dirty: { $exists: true } })).to.equal(0);
    });
  });
} else {
  skipLine('MongoDB read models: layout and kept totals', 'MONGODB_URL');
}
