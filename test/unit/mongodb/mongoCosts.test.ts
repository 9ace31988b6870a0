import { expect } from 'chai';
import { MongoReadModelStore } from '../../../src/adapters/mongodb/MongoReadModelStore.js';
import { MongoRateLimitCounters } from '../../../src/adapters/mongodb/MongoRateLimitCounters.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import type { DocumentCollection, ReadModelDocument } from '../../../src/application/ports/ReadModelStore.js';
import { mongoStandIn } from '../../support/mongoStandIn.js';
import { taskProjection, type TaskCreatedData } from '../../support/taskProjection.js';

/**
 * What the MongoDB adapters cost per request and per batch, in round trips and in
 * what they ask the server, counted against a stand-in of the MongoDB client
 * (test/support/mongoStandIn.ts). What a server answers to the same calls is
 * checked by the contract suites against a real one (MONGODB_URL).
 */
let position = 1000;
const taskCreated = (id: string, company = 'co-1'): RecordedEvent => ({
  id: `e-${++position}`,
  stream: `task-${id}`,
  revision: 0,
  position: String(position),
  type: 'TaskCreated',
  data: { id, title: `Task ${id}`, status: 'open', points: 1, tags: [], owner: null, at: '2026-01-01T00:00:00.000Z' } satisfies TaskCreatedData,
  metadata: { source: 'system', correlationId: 'c', companyId: company },
  recordedAt: '2026-01-01T00:00:00.000Z',
});

/** The layout this release records for the task projection: its collections are laid out (search keys, totals). */
const laidOut = { version: 1, search: taskProjection.search, totals: taskProjection.totals };

describe('MongoDB costs that must not grow with the data (stand-in of the MongoDB client)', () => {
  it('applies a batch to every read model at once: the same round trips for eight read models as for one', async () => {
    const roundTrips = async (models: number) => {
      const standIn = mongoStandIn();
      const store = MongoReadModelStore.overDatabase(standIn.db);
      const collections = Array.from({ length: models }, (_, i) => store.collection({ ...taskProjection, name: `tasks_${i}` })) as DocumentCollection<ReadModelDocument>[];
      await store.applyBatch(collections, [taskCreated('warm-up')], 'read-models');
      const from = standIn.calls.length;
      await store.applyBatch(collections, [taskCreated('a'), taskCreated('b', 'co-2')], 'read-models');
      return { trips: standIn.roundTripsSince(from), calls: standIn.calls.slice(from) };
    };
    const one = await roundTrips(1);
    const eight = await roundTrips(8);
    // Load the documents (and mark the companies' totals), write them, move the totals, save the checkpoint.
    expect(one.trips).to.equal(4);
    expect(eight.trips).to.equal(4);
    const checkpoint = eight.calls.find((call) => call.collection === 'checkpoints')!;
    expect(checkpoint.roundTrip, 'the checkpoint last').to.equal(Math.max(...eight.calls.map((call) => call.roundTrip)));
    expect(checkpoint.args[1]).to.deep.equal({ $set: { position: String(position), eventId: `e-${position}` } });
  });

  it('answers a batch that failed in one read model only once every other has finished its writes (a retry never runs beside them)', async () => {
    const standIn = mongoStandIn(({ collection, op }) => (collection === 'tasks_0' && op === 'bulkWrite' ? new Error('not primary') : undefined));
    const store = MongoReadModelStore.overDatabase(standIn.db);
    const collections = Array.from({ length: 4 }, (_, i) => store.collection({ ...taskProjection, name: `tasks_${i}` })) as DocumentCollection<ReadModelDocument>[];
    const failed = await store.applyBatch(collections, [taskCreated('x')], 'read-models').catch((error: unknown) => error);
    expect((failed as Error).message).to.equal('not primary');
    expect(standIn.pending(), 'writes still in flight').to.equal(0);
    expect(standIn.calls.filter((call) => call.collection === 'checkpoints'), 'no checkpoint').to.deep.equal([]);
  });

  it('reads a list’s total from the company’s kept totals instead of counting every match', async () => {
    const standIn = mongoStandIn(({ collection, op }) => {
      if (collection === 'readModelLayouts' && op === 'findOne') return { _id: 'test_tasks', ...laidOut };
      if (collection === 'test_tasks__counts' && op === 'findOne') return { _id: 'co-1', n: { all: 1234, [encodeURIComponent(JSON.stringify([['status', 'done']]))]: 7 } };
      return undefined;
    });
    const tasks = MongoReadModelStore.overDatabase(standIn.db).collection(taskProjection);
    const page = (filters: Parameters<typeof tasks.list>[0]['filters']) => tasks.list({ companyId: 'co-1', filters, page: 1, limit: 10, order: 'desc' });
    expect((await page([])).total).to.equal(1234);
    expect((await page([{ op: 'eq', field: 'status', value: 'done' }])).total).to.equal(7);
    expect(standIn.calls.filter((call) => call.op === 'countDocuments')).to.deep.equal([]);
    // A filter with no kept total is counted.
    await page([{ op: 'gt', field: 'points', value: 3 }]);
    expect(standIn.calls.filter((call) => call.op === 'countDocuments')).to.have.length(1);
  });

  it('counts while a batch is changing the totals, and while the collection is not laid out yet', async () => {
    let dirty = true;
    const standIn = mongoStandIn(({ collection, op }) => {
      if (collection === 'readModelLayouts' && op === 'findOne') return { _id: 'test_tasks', ...laidOut };
      if (collection === 'test_tasks__counts' && op === 'findOne') return { _id: 'co-1', n: { all: 5 }, ...(dirty ? { dirty: 'batch' } : {}) };
      if (op === 'countDocuments') return 6;
      return undefined;
    });
    const tasks = MongoReadModelStore.overDatabase(standIn.db).collection(taskProjection);
    expect((await tasks.list({ companyId: 'co-1', filters: [], page: 1, limit: 10, order: 'asc' })).total).to.equal(6);
    dirty = false;
    expect((await tasks.list({ companyId: 'co-1', filters: [], page: 1, limit: 10, order: 'asc' })).total).to.equal(5);
    const older = MongoReadModelStore.overDatabase(mongoStandIn(({ op }) => (op === 'countDocuments' ? 9 : undefined)).db).collection(taskProjection);
    expect((await older.list({ companyId: 'co-1', filters: [], page: 1, limit: 10, order: 'asc' })).total, 'no layout recorded yet').to.equal(9);
  });

  it('searches through the index of grams, never with an unanchored case-insensitive regular expression over the company', async () => {
    const standIn = mongoStandIn(({ collection, op }) => (collection === 'readModelLayouts' && op === 'findOne' ? { _id: 'test_tasks', ...laidOut } : undefined));
    const tasks = MongoReadModelStore.overDatabase(standIn.db).collection(taskProjection);
    await tasks.list({ companyId: 'co-1', filters: [{ op: 'contains', fields: ['title'], text: 'Weekly' }], page: 1, limit: 10, order: 'asc' });
    const [query] = standIn.calls.find((call) => call.op === 'find')!.args as [object];
    const text = JSON.stringify(query);
    expect(text).to.contain('"_g":{"$all":["0:wee","0:eek","0:ekl","0:kly"]}');
    expect(text).not.to.contain('"$options":"i"');
  });

  it('takes a concurrency slot in one round trip, however many of the key’s slots are held', async () => {
    const standIn = mongoStandIn(({ op }) => (op === 'findOneAndUpdate' ? { held: [] } : undefined));
    const counters = await MongoRateLimitCounters.create(standIn.db, { hourly: 100, daily: 1000, concurrent: 10 });
    const from = standIn.calls.length;
    // Every slot is taken (the answer never holds this caller's entry).
    expect(await counters.acquire('key-1')).to.equal(null);
    expect(standIn.roundTripsSince(from)).to.equal(1);
    expect(standIn.calls.slice(from)).to.have.length(1);
  });
});
