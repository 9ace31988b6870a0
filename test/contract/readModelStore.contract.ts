import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import type { DocumentCollection, ListQuery, Projection, ReadModelStore } from '../../src/application/ports/ReadModelStore.js';
import { taskProjection, type TaskCreatedData, type TaskDoc } from '../support/taskProjection.js';
import { COMPANY_ERASED, erasedWithCompany } from '../../src/features/companies/index.js';

export interface ReadModelStoreFixture {
  readonly store: ReadModelStore;
  readonly dispose: () => Promise<void>;
}

/** Builds recorded events with increasing positions, as a log would. */
const makeLog = () => {
  let position = 1000;
  return (type: string, data: unknown, companyId: string): RecordedEvent => {
    position += 1;
    return {
      id: randomUUID(),
      stream: `test-${companyId}`,
      revision: position,
      position: String(position),
      type,
      data,
      metadata: { source: 'system', correlationId: 'c', companyId },
      recordedAt: new Date().toISOString(),
    };
  };
};

const created = (over: Partial<TaskCreatedData> & { id: string }): TaskCreatedData => ({
  title: 'Task',
  status: 'open',
  points: 1,
  tags: [],
  owner: null,
  at: '2026-01-01T00:00:00.000Z',
  ...over,
});

/** A second read model with the same documents. */
const notesProjection: Projection<TaskDoc> = { ...taskProjection, name: 'test_notes' };

/** The same documents with a view: `owner`, which is not their last field as the projection builds them. */
const ownedProjection: Projection<TaskDoc> = { ...taskProjection, name: 'test_owned', view: 'owner' };

/** Text a view's slicing must not be misled by: quotes, backslashes and the view's own key. */
const TRICKY = 'Ann \\"the, ,"owner":{"boss"}\\ }';

/** A read model whose projection fails on every event. */
const failingProjection: Projection<TaskDoc> = {
  ...taskProjection,
  name: 'test_failing',
  evolve: () => {
    throw new Error('projection failed');
  },
};

/** The same documents, all of a company dropped at its `CompanyErased`. */
const erasableProjection: Projection<TaskDoc> = erasedWithCompany({ ...taskProjection, name: 'test_erasable' });

/** The partition of a read model kept for every company at once, whose documents name their company in `owner.id`. */
const SHARED_PARTITION = 'test-shared';
const sharedProjection: Projection<TaskDoc> = erasedWithCompany({ ...taskProjection, name: 'test_shared' }, { partition: SHARED_PARTITION, field: 'owner.id' });

/** Every projection the contract applies batches of (a store whose batches run elsewhere must know them). */
export const CONTRACT_PROJECTIONS: readonly Projection<TaskDoc>[] = [
  taskProjection,
  notesProjection,
  ownedProjection,
  failingProjection,
  erasableProjection,
  sharedProjection,
];

/** The ReadModelStore port's contract, run unchanged for every adapter. */
export const readModelStoreContract = (name: string, open: () => Promise<ReadModelStoreFixture>): void => {
  describe(`ReadModelStore contract: ${name}`, function () {
    this.timeout(20_000);
    let fixture: ReadModelStoreFixture;
    let tasks: DocumentCollection<TaskDoc>;
    let log: ReturnType<typeof makeLog>;
    // Unique companies keep runs against a shared server apart.
    let companyA: string;
    let companyB: string;

    beforeEach(async () => {
      fixture = await open();
      tasks = fixture.store.collection(taskProjection);
      await fixture.store.init();
      log = makeLog();
      companyA = `company-a-${randomUUID()}`;
      companyB = `company-b-${randomUUID()}`;
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    const query = (over: Partial<ListQuery> = {}): ListQuery => ({
      companyId: companyA,
      filters: [],
      page: 1,
      limit: 50,
      order: 'asc',
      ...over,
    });

    describe('documents', () => {
      it('creates a document from an event and reads it back', async () => {
        await tasks.apply([log('TaskCreated', created({ id: 't1', title: 'First', tags: ['x'] }), companyA)]);
        const doc = await tasks.get(companyA, 't1');
        expect(doc).to.include({ id: 't1', companyId: companyA, title: 'First', status: 'open', points: 1 });
        expect(doc!.tags).to.deep.equal(['x']);
        expect(doc!.position).to.equal('1001');
      });

      it('does not show a document to another company', async () => {
        await tasks.apply([log('TaskCreated', created({ id: 't1' }), companyA)]);
        expect(await tasks.get(companyB, 't1')).to.equal(null);
        expect(await tasks.get(companyA, 'missing')).to.equal(null);
      });

      it('folds a batch in order and deletes when the projection returns null', async () => {
        await tasks.apply([
          log('TaskCreated', created({ id: 't1' }), companyA),
          log('TaskRenamed', { id: 't1', title: 'Renamed', at: '2026-01-02T00:00:00.000Z' }, companyA),
          log('TaskCreated', created({ id: 't2' }), companyA),
          log('TaskDeleted', { id: 't2' }, companyA),
        ]);
        const doc = await tasks.get(companyA, 't1');
        expect(doc).to.include({ title: 'Renamed', updatedAt: '2026-01-02T00:00:00.000Z', position: '1002' });
        expect(await tasks.get(companyA, 't2')).to.equal(null);
        expect((await tasks.list(query())).total).to.equal(1);
      });

      it('changes nothing when an event is applied twice', async () => {
        const create = log('TaskCreated', created({ id: 't1' }), companyA);
        const rename = log('TaskRenamed', { id: 't1', title: 'Once', at: '2026-01-02T00:00:00.000Z' }, companyA);
        const renameAgain = log('TaskRenamed', { id: 't1', title: 'Twice', at: '2026-01-03T00:00:00.000Z' }, companyA);
        await tasks.apply([create, rename, renameAgain]);
        // Replaying the older events (a restart from an older checkpoint) must not undo the newer one.
        await tasks.apply([create, rename]);
        await tasks.apply([rename]);
        const doc = await tasks.get(companyA, 't1');
        expect(doc).to.include({ title: 'Twice', position: renameAgain.position });
        expect((await tasks.list(query())).total).to.equal(1);
      });

      it('updates every document of the company that a where-target matches', async () => {
        const owner = { id: 'u1', name: 'Ann' };
        await tasks.apply([
          log('TaskCreated', created({ id: 't1', owner }), companyA),
          log('TaskCreated', created({ id: 't2', owner }), companyA),
          log('TaskCreated', created({ id: 't3', owner: { id: 'u2', name: 'Bob' } }), companyA),
          log('TaskCreated', created({ id: 't4', owner }), companyB),
        ]);
        await tasks.apply([log('OwnerRenamed', { ownerId: 'u1', name: 'Anna' }, companyA)]);
        expect((await tasks.get(companyA, 't1'))!.owner!.name).to.equal('Anna');
        expect((await tasks.get(companyA, 't2'))!.owner!.name).to.equal('Anna');
        expect((await tasks.get(companyA, 't3'))!.owner!.name).to.equal('Bob');
        expect((await tasks.get(companyB, 't4'))!.owner!.name).to.equal('Ann');
      });

      it('finds where-targets created, deleted and renamed after an earlier where-target', async () => {
        const owner = { id: 'u1', name: 'Ann' };
        await tasks.apply([
          log('TaskCreated', created({ id: 't1', owner }), companyA),
          log('TaskCreated', created({ id: 't2', owner }), companyA),
          log('OwnerRenamed', { ownerId: 'u1', name: 'Anna' }, companyA),
          log('TaskCreated', created({ id: 't3', owner: { id: 'u1', name: 'Anna' } }), companyA),
          log('TaskDeleted', { id: 't2' }, companyA),
          log('OwnerRenamed', { ownerId: 'u1', name: 'Annie' }, companyA),
        ]);
        expect((await tasks.get(companyA, 't1'))!.owner!.name).to.equal('Annie');
        expect((await tasks.get(companyA, 't3'))!.owner!.name).to.equal('Annie');
        expect(await tasks.get(companyA, 't2')).to.equal(null);
      });

      it('keeps listing and searching right after many deletions', async () => {
        const events: RecordedEvent[] = [];
        for (let i = 0; i < 200; i++) events.push(log('TaskCreated', created({ id: `d${i}`, title: `Doc ${i}` }), companyA));
        await tasks.apply(events);
        const search = async (text: string) =>
          (await tasks.list(query({ filters: [{ op: 'contains', fields: ['title'], text }], limit: 200 }))).items.map((d) => d.id);
        expect(await search('doc 19')).to.have.length(11);
        await tasks.apply(Array.from({ length: 150 }, (_, i) => log('TaskDeleted', { id: `d${i}` }, companyA)));
        expect((await tasks.list(query({ limit: 200 }))).items.map((d) => d.id)).to.deep.equal(
          Array.from({ length: 50 }, (_, i) => `d${150 + i}`),
        );
        expect(await search('doc 19')).to.deep.equal(['d190', 'd191', 'd192', 'd193', 'd194', 'd195', 'd196', 'd197', 'd198', 'd199']);
        await tasks.apply([log('TaskRenamed', { id: 'd195', title: 'Moved', at: '2026-03-01T00:00:00.000Z' }, companyA)]);
        expect(await search('doc 19')).to.not.include('d195');
        expect(await search('moved')).to.deep.equal(['d195']);
      });

      describe('getView (a document with its view as JSON text)', () => {
        let owned: DocumentCollection<TaskDoc>;
        beforeEach(async () => {
          owned = fixture.store.collection(ownedProjection);
          await fixture.store.init();
        });

        it('hands out the view as the JSON text of the field, with the other fields', async () => {
          const owner = { id: 'o1', name: TRICKY };
          await owned.apply([log('TaskCreated', created({ id: 't1', title: TRICKY, tags: [',"owner":', TRICKY], owner }), companyA)]);
          const found = await owned.getView(companyA, 't1');
          expect(JSON.parse(found!.json)).to.deep.equal(owner);
          expect(found!.doc).to.include({ id: 't1', companyId: companyA, title: TRICKY, position: '1001' });
          expect(found!.doc.tags).to.deep.equal([',"owner":', TRICKY]);
        });

        it('follows the document as it changes, and answers null for a view it does not have', async () => {
          await owned.apply([
            log('TaskCreated', created({ id: 't1', owner: { id: 'o1', name: 'Ann' } }), companyA),
            log('TaskCreated', created({ id: 't2', owner: null }), companyA),
            log('OwnerRenamed', { ownerId: 'o1', name: 'Anna' }, companyA),
          ]);
          expect(JSON.parse((await owned.getView(companyA, 't1'))!.json)).to.deep.equal({ id: 'o1', name: 'Anna' });
          expect((await owned.getView(companyA, 't2'))!.json).to.equal('null');
          expect((await owned.get(companyA, 't1'))!.owner).to.deep.equal({ id: 'o1', name: 'Anna' });
        });

        it('does not show a document to another company', async () => {
          await owned.apply([log('TaskCreated', created({ id: 't1' }), companyA)]);
          expect(await owned.getView(companyB, 't1')).to.equal(null);
          expect(await owned.getView(companyA, 'missing')).to.equal(null);
        });

        it('is refused for a read model that names no view', async () => {
          await tasks.apply([log('TaskCreated', created({ id: 't1' }), companyA)]);
          const error = await tasks.getView(companyA, 't1').then(
            () => null,
            (e: unknown) => e,
          );
          expect(error).to.be.instanceOf(Error);
        });
      });

      it('clears every document', async () => {
        await tasks.apply([log('TaskCreated', created({ id: 't1' }), companyA)]);
        await tasks.clear();
        expect(await tasks.get(companyA, 't1')).to.equal(null);
        expect((await tasks.list(query())).total).to.equal(0);
      });
    });

    describe('list', () => {
      beforeEach(async () => {
        const events: RecordedEvent[] = [];
        for (let i = 1; i <= 12; i++) {
          events.push(
            log(
              'TaskCreated',
              created({
                id: `t${String(i).padStart(2, '0')}`,
                title: i === 7 ? 'Call Müller (urgent) .*(' : `Task number ${i}`,
                status: i % 3 === 0 ? 'done' : 'open',
                points: i,
                tags: i % 2 === 0 ? ['even', 'all'] : ['odd', 'all'],
                at: `2026-01-${String(i).padStart(2, '0')}T00:00:00.000Z`,
              }),
              companyA,
            ),
          );
        }
        events.push(log('TaskCreated', created({ id: 'other', title: 'Task number 1' }), companyB));
        await tasks.apply(events);
      });

      it('lists a company’s documents in creation order with the total', async () => {
        const page = await tasks.list(query());
        expect(page.total).to.equal(12);
        expect(page.items.map((d) => d.id)).to.deep.equal(
          Array.from({ length: 12 }, (_, i) => `t${String(i + 1).padStart(2, '0')}`),
        );
      });

      it('lists newest first on request', async () => {
        const page = await tasks.list(query({ order: 'desc', limit: 3 }));
        expect(page.items.map((d) => d.id)).to.deep.equal(['t12', 't11', 't10']);
      });

      it('pages with page and limit', async () => {
        const page = await tasks.list(query({ page: 3, limit: 5 }));
        expect(page.total).to.equal(12);
        expect(page.items.map((d) => d.id)).to.deep.equal(['t11', 't12']);
        const beyond = await tasks.list(query({ page: 4, limit: 5 }));
        expect(beyond.items).to.deep.equal([]);
        expect(beyond.total).to.equal(12);
      });

      it('may leave the total out when the query asks for none, never the items', async () => {
        const page = await tasks.list(query({ order: 'desc', limit: 3, withTotal: false }));
        expect(page.items.map((d) => d.id)).to.deep.equal(['t12', 't11', 't10']);
        expect(page.total).to.be.within(3, 12);
        const second = await tasks.list(query({ page: 2, limit: 5, withTotal: false, filters: [{ op: 'eq', field: 'status', value: 'open' }] }));
        // The last page: everything up to its end is the whole.
        expect(second.items.map((d) => d.id)).to.deep.equal(['t08', 't10', 't11']);
        expect(second.total).to.equal(8);
      });

      it('filters by equality and combines filters', async () => {
        const done = await tasks.list(query({ filters: [{ op: 'eq', field: 'status', value: 'done' }] }));
        expect(done.items.map((d) => d.id)).to.deep.equal(['t03', 't06', 't09', 't12']);
        const doneAfter = await tasks.list(
          query({
            filters: [
              { op: 'eq', field: 'status', value: 'done' },
              { op: 'gt', field: 'createdAt', value: '2026-01-06T00:00:00.000Z' },
            ],
          }),
        );
        expect(doneAfter.items.map((d) => d.id)).to.deep.equal(['t09', 't12']);
        expect(doneAfter.total).to.equal(2);
      });

      it('compares with gt, gte, lt and lte', async () => {
        const ids = async (op: 'gt' | 'gte' | 'lt' | 'lte', value: number) =>
          (await tasks.list(query({ filters: [{ op, field: 'points', value }] }))).items.map((d) => d.points);
        expect(await ids('gt', 10)).to.deep.equal([11, 12]);
        expect(await ids('gte', 11)).to.deep.equal([11, 12]);
        expect(await ids('lt', 2)).to.deep.equal([1]);
        expect(await ids('lte', 2)).to.deep.equal([1, 2]);
      });

      it('matches a case-insensitive literal substring, never a pattern', async () => {
        const search = async (text: string) =>
          (await tasks.list(query({ filters: [{ op: 'contains', fields: ['title', 'status'], text }] }))).items.map(
            (d) => d.id,
          );
        expect(await search('MÜLLER')).to.deep.equal(['t07']);
        expect(await search('.*(')).to.deep.equal(['t07']);
        expect(await search('(urgent)')).to.deep.equal(['t07']);
        expect(await search('number 1')).to.deep.equal(['t01', 't10', 't11', 't12']);
        expect(await search('DONE')).to.deep.equal(['t03', 't06', 't09', 't12']);
        expect(await search('.*')).to.deep.equal(['t07']);
        expect(await search('^Task')).to.deep.equal([]);
      });

      it('filters by equality on the current values after documents change', async () => {
        const titled = async (value: string) =>
          (await tasks.list(query({ filters: [{ op: 'eq', field: 'title', value }] }))).items.map((d) => d.id);
        expect(await titled('Task number 5')).to.deep.equal(['t05']);
        await tasks.apply([
          log('TaskRenamed', { id: 't05', title: 'Task number 6', at: '2026-02-01T00:00:00.000Z' }, companyA),
          log('TaskDeleted', { id: 't06' }, companyA),
        ]);
        expect(await titled('Task number 5')).to.deep.equal([]);
        expect(await titled('Task number 6')).to.deep.equal(['t05']);
        const done = await tasks.list(query({ filters: [{ op: 'eq', field: 'status', value: 'done' }], order: 'desc' }));
        expect(done.items.map((d) => d.id)).to.deep.equal(['t12', 't09', 't03']);
      });

      it('searches the current values after a document changes', async () => {
        const search = async (text: string) =>
          (await tasks.list(query({ filters: [{ op: 'contains', fields: ['title'], text }] }))).items.map((d) => d.id);
        expect(await search('number 5')).to.deep.equal(['t05']);
        await tasks.apply([log('TaskRenamed', { id: 't05', title: 'Renamed five', at: '2026-02-01T00:00:00.000Z' }, companyA)]);
        expect(await search('number 5')).to.deep.equal([]);
        expect(await search('renamed FIVE')).to.deep.equal(['t05']);
      });

      it('keeps every total right while documents move, lose their owner and go (randomized, against the items)', async () => {
        // Seeded: the same moves on every adapter and run.
        let seed = 12_345;
        const random = (n: number) => {
          seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
          return seed % n;
        };
        const statuses = ['open', 'done', 'blocked'];
        const owners = [null, { id: 'u1', name: 'Ada' }, { id: 'u2', name: 'Bob' }];
        const live = new Set(Array.from({ length: 12 }, (_, i) => `t${String(i + 1).padStart(2, '0')}`));
        const filterSets: ListQuery['filters'][] = [
          [],
          ...statuses.map((value) => [{ op: 'eq' as const, field: 'status', value }]),
          ...statuses.flatMap((status) =>
            owners.map((owner) => [
              { op: 'eq' as const, field: 'owner.id', value: owner?.id ?? null },
              { op: 'eq' as const, field: 'status', value: status },
            ]),
          ),
          [{ op: 'eq', field: 'owner.id', value: 'u1' }],
          [{ op: 'eq', field: 'status', value: 'open' }, { op: 'contains', fields: ['title'], text: '' }],
        ];
        for (let round = 0; round < 8; round++) {
          const events: RecordedEvent[] = [];
          for (let k = 0; k < 6; k++) {
            const id = `t${String(1 + random(16)).padStart(2, '0')}`;
            const choice = random(10);
            if (!live.has(id)) {
              events.push(log('TaskCreated', created({ id, status: statuses[random(3)]!, owner: owners[random(3)]! }), companyA));
              live.add(id);
            } else if (choice < 7) {
              events.push(log('TaskMoved', { id, status: statuses[random(3)], owner: owners[random(3)], at: '2026-03-01T00:00:00.000Z' }, companyA));
            } else {
              events.push(log('TaskDeleted', { id }, companyA));
              live.delete(id);
            }
          }
          await tasks.apply(events);
          for (const filters of filterSets) {
            const all = await tasks.list(query({ filters, limit: 100 }));
            const firstPage = await tasks.list(query({ filters, limit: 2, page: 2 }));
            expect(all.total, JSON.stringify(filters)).to.equal(all.items.length);
            expect(firstPage.total, JSON.stringify(filters)).to.equal(all.items.length);
          }
        }
        // Company B's document is counted apart.
        expect((await tasks.list(query({ companyId: companyB, filters: [{ op: 'eq', field: 'status', value: 'open' }] }))).total).to.equal(1);
      });

      it('answers a search’s total afresh after the company’s documents change, also when asked before', async () => {
        const search = query({ filters: [{ op: 'contains', fields: ['title'], text: 'number' }], limit: 2 });
        expect((await tasks.list(search)).total).to.equal(11);
        expect((await tasks.list({ ...search, page: 2 })).total).to.equal(11);
        await tasks.apply([
          log('TaskCreated', created({ id: 't13', title: 'Task number 13' }), companyA),
          log('TaskDeleted', { id: 't01' }, companyA),
          log('TaskCreated', created({ id: 't14', title: 'Task number 14' }), companyA),
        ]);
        expect((await tasks.list(search)).total).to.equal(12);
        // A change in another company changes nothing here.
        await tasks.apply([log('TaskCreated', created({ id: 'other-2', title: 'Task number 2' }), companyB)]);
        expect((await tasks.list(search)).total).to.equal(12);
        await tasks.apply([log('TaskRenamed', { id: 't02', title: 'Renamed', at: '2026-02-01T00:00:00.000Z' }, companyA)]);
        expect((await tasks.list(search)).total).to.equal(11);
      });

      it('matches documents whose array holds every value', async () => {
        const even = await tasks.list(query({ filters: [{ op: 'hasAll', field: 'tags', values: ['even', 'all'] }] }));
        expect(even.total).to.equal(6);
        const none = await tasks.list(query({ filters: [{ op: 'hasAll', field: 'tags', values: ['even', 'odd'] }] }));
        expect(none.total).to.equal(0);
      });

      it('matches equality on a nested field', async () => {
        await tasks.apply([log('TaskCreated', created({ id: 'owned', owner: { id: 'u9', name: 'Zoe' } }), companyA)]);
        const page = await tasks.list(query({ filters: [{ op: 'eq', field: 'owner.id', value: 'u9' }] }));
        expect(page.items.map((d) => d.id)).to.deep.equal(['owned']);
      });

      it('never lists another company’s documents', async () => {
        const page = await tasks.list(query({ companyId: companyB }));
        expect(page.items.map((d) => d.id)).to.deep.equal(['other']);
        const none = await tasks.list(query({ companyId: `nobody-${randomUUID()}` }));
        expect(none).to.deep.equal({ items: [], total: 0 });
      });
    });

    describe('listCreatedAfter (keyset pages)', () => {
      /** An event at an exact position (positions of different lengths check numeric order). */
      const at = (position: string, type: string, data: unknown, companyId = companyA): RecordedEvent => ({
        ...log(type, data, companyId),
        position,
      });
      const ids = async (after: string | null, limit = 50, companyId = companyA) =>
        (await tasks.listCreatedAfter(companyId, after, limit)).map((d) => d.id);

      beforeEach(async () => {
        await tasks.apply([
          at('98', 'TaskCreated', created({ id: 'a' })),
          at('99', 'TaskCreated', created({ id: 'b' })),
          at('100', 'TaskCreated', created({ id: 'c' })),
          at('101', 'TaskCreated', created({ id: 'theirs' }), companyB),
          at('1000', 'TaskCreated', created({ id: 'd' })),
          at('1001', 'TaskRenamed', { id: 'a', title: 'Renamed', at: '2026-02-01T00:00:00.000Z' }),
        ]);
      });

      it('pages a company’s documents in creation order after a position, compared as numbers', async () => {
        expect(await ids(null)).to.deep.equal(['a', 'b', 'c', 'd']);
        expect(await ids('98')).to.deep.equal(['b', 'c', 'd']);
        expect(await ids('99')).to.deep.equal(['c', 'd']);
        expect(await ids('100', 1)).to.deep.equal(['d']);
        expect(await ids('0', 2)).to.deep.equal(['a', 'b']);
        expect(await ids(null, 0)).to.deep.equal([]);
        expect(await ids(null, 50, companyB)).to.deep.equal(['theirs']);
        expect(await ids(null, 50, `nobody-${randomUUID()}`)).to.deep.equal([]);
      });

      it('returns the documents as they are now, and nothing after the last one', async () => {
        const [first] = await tasks.listCreatedAfter(companyA, null, 1);
        expect(first).to.include({ id: 'a', title: 'Renamed', position: '1001' });
        expect(await ids('1000')).to.deep.equal([]);
        expect(await ids('1'.padEnd(60, '0'))).to.deep.equal([]);
      });

      it('skips deleted documents, and keeps creation order when a replay re-creates one', async () => {
        const recreate = at('99', 'TaskCreated', created({ id: 'b' }));
        await tasks.apply([at('1002', 'TaskDeleted', { id: 'b' }), at('1003', 'TaskCreated', created({ id: 'e' }))]);
        expect(await ids(null)).to.deep.equal(['a', 'c', 'd', 'e']);
        // A replay from an older checkpoint brings `b` back (until its deletion is replayed too).
        await tasks.apply([recreate]);
        expect(await ids(null)).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
        expect(await ids('98', 2)).to.deep.equal(['b', 'c']);
        expect(await ids('100')).to.deep.equal(['d', 'e']);
      });
    });

    describe('scan', () => {
      it('yields every document of every company once', async () => {
        await tasks.apply([
          log('TaskCreated', created({ id: 't1' }), companyA),
          log('TaskCreated', created({ id: 't2' }), companyA),
          log('TaskCreated', created({ id: 't1' }), companyB),
          log('TaskCreated', created({ id: 't3' }), companyB),
          log('TaskDeleted', { id: 't3' }, companyB),
        ]);
        const seen: string[] = [];
        for await (const doc of tasks.scan()) seen.push(`${doc.companyId}/${doc.id}`);
        expect(seen.sort()).to.deep.equal([`${companyA}/t1`, `${companyA}/t2`, `${companyB}/t1`].sort());
      });
    });

    describe('staging (replay)', () => {
      const ids = async (collection: DocumentCollection<TaskDoc>) =>
        (await collection.list(query({ limit: 200 }))).items.map((d) => d.id);

      it('builds apart from the live collection, which keeps serving until the swap', async () => {
        await tasks.apply([log('TaskCreated', created({ id: 'old', title: 'Old' }), companyA)]);
        const staging = await fixture.store.staging();
        const staged = staging.collection(taskProjection);
        await staging.init();
        const rebuilt = [
          log('TaskCreated', created({ id: 'n1', title: 'New 1' }), companyA),
          log('TaskCreated', created({ id: 'n2', title: 'New 2' }), companyA),
          log('TaskRenamed', { id: 'n1', title: 'New 1b', at: '2026-01-02T00:00:00.000Z' }, companyA),
        ];
        await staged.apply(rebuilt);
        expect(await ids(staged)).to.deep.equal(['n1', 'n2']);
        expect(await ids(tasks)).to.deep.equal(['old']);

        const name = `replay-${randomUUID()}`;
        await staging.swap({ name, position: rebuilt[2]!.position });
        // The collection handed out before the swap now reads the rebuilt documents.
        expect(await ids(tasks)).to.deep.equal(['n1', 'n2']);
        expect(await tasks.get(companyA, 'old')).to.equal(null);
        expect(await tasks.get(companyA, 'n1')).to.include({ title: 'New 1b', position: rebuilt[2]!.position });
        expect((await tasks.list(query({ filters: [{ op: 'contains', fields: ['title'], text: 'new 2' }] }))).total).to.equal(1);
        expect(await fixture.store.checkpoints.load(name)).to.equal(rebuilt[2]!.position);
        // Later events fold into the swapped-in documents as usual.
        await tasks.apply([log('TaskRenamed', { id: 'n2', title: 'After', at: '2026-01-03T00:00:00.000Z' }, companyA)]);
        expect(await tasks.get(companyA, 'n2')).to.include({ title: 'After' });
      });

      it('swaps every staged read model, with the checkpoint', async () => {
        const notes = fixture.store.collection(notesProjection);
        await fixture.store.init();
        await fixture.store.applyBatch([tasks as never, notes as never], [log('TaskCreated', created({ id: 'old' }), companyA)], 'x');
        const staging = await fixture.store.staging();
        const staged = [staging.collection(taskProjection), staging.collection(notesProjection)];
        await staging.init();
        const rebuilt = [log('TaskCreated', created({ id: 'new' }), companyA), log('TaskCreated', created({ id: 'newer' }), companyA)];
        await staging.applyBatch(staged as never[], rebuilt);
        for (const collection of staged) expect(await ids(collection)).to.deep.equal(['new', 'newer']);
        for (const collection of [tasks, notes]) expect(await ids(collection)).to.deep.equal(['old']);
        const name = `replay-${randomUUID()}`;
        await staging.swap({ name, position: rebuilt[1]!.position });
        for (const collection of [tasks, notes]) expect(await ids(collection)).to.deep.equal(['new', 'newer']);
        expect(await fixture.store.checkpoints.load(name)).to.equal(rebuilt[1]!.position);
      });

      it('swaps in an empty rebuild (an empty log) and forgets the checkpoint', async () => {
        await tasks.apply([log('TaskCreated', created({ id: 'old' }), companyA)]);
        const name = `replay-${randomUUID()}`;
        await fixture.store.checkpoints.save(name, '5');
        const staging = await fixture.store.staging();
        staging.collection(taskProjection);
        await staging.init();
        await staging.swap({ name, position: null });
        expect(await ids(tasks)).to.deep.equal([]);
        expect(await fixture.store.checkpoints.load(name)).to.equal(null);
      });

      it('leaves the live collection alone when a rebuild is discarded, and starts the next one empty', async () => {
        await tasks.apply([log('TaskCreated', created({ id: 'old' }), companyA)]);
        const abandoned = await fixture.store.staging();
        await abandoned.init();
        await abandoned.collection(taskProjection).apply([log('TaskCreated', created({ id: 'half' }), companyA)]);
        // A rebuild that stopped half-way (never discarded) leaves nothing to the next one.
        const next = await fixture.store.staging();
        const staged = next.collection(taskProjection);
        await next.init();
        expect(await ids(staged)).to.deep.equal([]);
        await next.discard();
        expect(await ids(tasks)).to.deep.equal(['old']);
      });
    });

    describe('read models added beside documents that applied the log (readModelsToBuild)', () => {
      it('lists a read model created once a batch was applied, until a rebuild swaps it in', async () => {
        const added: Projection<TaskDoc> = { ...taskProjection, name: `test_added_${randomUUID().slice(0, 8)}` };
        if (!fixture.store.durable) {
          // Rebuilt from the log at every start: nothing is ever missing.
          fixture.store.collection(added);
          await fixture.store.init();
          expect(await fixture.store.readModelsToBuild()).to.deep.equal([]);
          return;
        }
        await fixture.store.init();
        const name = `added-${randomUUID()}`;
        const event = log('TaskCreated', created({ id: 'before' }), companyA);
        await fixture.store.applyBatch([tasks], [event], name);
        const late = fixture.store.collection(added);
        await fixture.store.init();
        expect(await fixture.store.readModelsToBuild()).to.include(added.name);
        expect(await fixture.store.readModelsToBuild()).to.not.include(taskProjection.name);
        // Built from the log by a rebuild: no longer listed.
        const staging = await fixture.store.staging();
        const staged = [staging.collection(taskProjection), staging.collection(added)];
        await staging.init();
        await staging.applyBatch(staged, [event]);
        await staging.swap({ name, position: event.position, eventId: event.id });
        expect(await fixture.store.readModelsToBuild()).to.not.include(added.name);
        const listed = await late.list({ companyId: companyA, filters: [], page: 1, limit: 10, order: 'asc' });
        expect(listed.items.map((doc) => doc.id)).to.deep.equal(['before']);
      });
    });

    describe('applyBatch (a runner\'s batch with its checkpoint)', () => {
      it('folds the batch into every collection and saves the checkpoint at its last position', async () => {
        const notes = fixture.store.collection(notesProjection);
        await fixture.store.init();
        const name = `runner-${randomUUID()}`;
        const batch = [
          log('TaskCreated', created({ id: 't1', title: 'One' }), companyA),
          log('TaskRenamed', { id: 't1', title: 'Uno', at: '2026-01-02T00:00:00.000Z' }, companyA),
          log('TaskCreated', created({ id: 't2' }), companyA),
        ];
        await fixture.store.applyBatch([tasks as never, notes as never], batch, name);
        for (const collection of [tasks, notes]) {
          expect(await collection.get(companyA, 't1')).to.include({ title: 'Uno', position: batch[1]!.position });
          expect((await collection.list(query())).total).to.equal(2);
        }
        expect(await fixture.store.checkpoints.load(name)).to.equal(batch[2]!.position);
        // The same batch again (a restart from an older checkpoint) changes nothing.
        await fixture.store.applyBatch([tasks as never, notes as never], batch, name);
        expect(await tasks.get(companyA, 't1')).to.include({ title: 'Uno' });
        expect(await fixture.store.checkpoints.load(name)).to.equal(batch[2]!.position);
      });

      it('leaves the checkpoint where it was when a projection fails', async () => {
        const failing = fixture.store.collection(failingProjection);
        await fixture.store.init();
        const name = `runner-${randomUUID()}`;
        const first = log('TaskCreated', created({ id: 't1' }), companyA);
        await fixture.store.applyBatch([tasks as never], [first], name);
        const batch = [log('TaskCreated', created({ id: 't2' }), companyA)];
        const error = await fixture.store.applyBatch([tasks as never, failing as never], batch, name).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).to.be.instanceOf(Error);
        expect(await fixture.store.checkpoints.load(name)).to.equal(first.position);
      });
    });

    describe('checkpoints', () => {
      it('loads null for an unknown name, then what was saved', async () => {
        const checkpoints = fixture.store.checkpoints;
        const name = `test-${randomUUID()}`;
        expect(await checkpoints.load(name)).to.equal(null);
        await checkpoints.save(name, '42');
        await checkpoints.save(name, '1000000000000000000000');
        expect(await checkpoints.load(name)).to.equal('1000000000000000000000');
        await checkpoints.reset(name);
        expect(await checkpoints.load(name)).to.equal(null);
      });
    });

    describe('a company erased', () => {
      it('drops every document of the company at its CompanyErased, from its lists and searches too, and none of another company', async () => {
        const erasable = fixture.store.collection(erasableProjection);
        const shared = fixture.store.collection(sharedProjection);
        await fixture.store.init();
        const [ownerA, ownerB] = [{ id: companyA, name: 'A' }, { id: companyB, name: 'B' }];
        const [sharedA, sharedB] = [`shared-a-${randomUUID()}`, `shared-b-${randomUUID()}`];
        const checkpoint = `test-erase-${randomUUID()}`;
        await fixture.store.applyBatch(
          [erasable, shared],
          [
            log('TaskCreated', created({ id: 't1', title: 'Zanzibar quill', status: 'open' }), companyA),
            log('TaskCreated', created({ id: 't2', title: 'Zanzibar ink', status: 'done' }), companyA),
            log('TaskCreated', created({ id: 't1', title: 'Zanzibar kept' }), companyB),
            log('TaskCreated', created({ id: sharedA, owner: ownerA }), SHARED_PARTITION),
            log('TaskCreated', created({ id: sharedB, owner: ownerB }), SHARED_PARTITION),
          ],
          checkpoint,
        );
        const search = (companyId: string) => erasable.list(query({ companyId, filters: [{ op: 'contains', fields: ['title'], text: 'zanzibar' }] }));
        expect((await search(companyA)).total).to.equal(2);

        await fixture.store.applyBatch([erasable, shared], [log(COMPANY_ERASED, { companyId: companyA, erasedAt: '2026-01-05T00:00:00.000Z' }, companyA)], checkpoint);

        expect(await erasable.get(companyA, 't1')).to.equal(null);
        expect(await erasable.get(companyA, 't2')).to.equal(null);
        expect((await erasable.list(query())).total).to.equal(0);
        expect((await erasable.list(query({ filters: [{ op: 'eq', field: 'status', value: 'open' }] }))).total).to.equal(0);
        expect((await search(companyA)).items).to.deep.equal([]);
        expect(await shared.get(SHARED_PARTITION, sharedA)).to.equal(null);
        expect(await erasable.get(companyB, 't1')).to.include({ title: 'Zanzibar kept' });
        expect((await search(companyB)).items.map((doc) => doc.id)).to.deep.equal(['t1']);
        expect(await shared.get(SHARED_PARTITION, sharedB)).to.include({ id: sharedB });
        // Applied again (a restart from an older checkpoint), it finds nothing more to drop.
        await erasable.apply([log(COMPANY_ERASED, { companyId: companyA, erasedAt: '2026-01-05T00:00:00.000Z' }, companyA)]);
        expect((await erasable.list(query({ companyId: companyB }))).total).to.equal(1);
      });
    });
  });
};
