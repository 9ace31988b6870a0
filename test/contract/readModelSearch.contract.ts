import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import type { DocumentCollection, ListQuery } from '../../src/application/ports/ReadModelStore.js';
import { taskProjection, type TaskCreatedData, type TaskDoc } from '../support/taskProjection.js';
import type { ReadModelStoreFixture } from './readModelStore.contract.js';

export interface SearchContractOptions {
  /**
   * Whether the alphabet holds the letters whose case JavaScript maps in ways a
   * regular expression's case folding does not (İ → i̇, ẞ → ß, the final sigma,
   * dotless ı). The memory and SQLite adapters lower-case with JavaScript and
   * match them exactly; so does MongoDB in the fields it keeps search keys for
   * (`title`), while its `$regex` folds them otherwise in the others (`status`).
   */
  readonly specialCasing: boolean;
}

/** A small deterministic generator (mulberry32), so that a failure can be replayed from its seed. */
const generator = (seed: number) => {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (below: number): number => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
};

const COMMON = ['a', 'b', 'c', 'A', 'B', 'ä', 'Ä', 'ö', 'Ö', 'é', 'É', 'ß', ' ', '%', '_', '"', "'", '*', '\\', '(', ')', '.', '-', '+', ':', '^', '{', '}', '😀'];
/** FTS5 query syntax, which a search must take literally. */
const WORDS = ['AND', 'OR', 'NOT', 'NEAR', 'NEAR(', 'and', 'or', '"*"', 'col:'];
const SPECIAL = ['İ', 'i', 'I', 'ı', 'ẞ', 'Σ', 'σ', 'ς'];

/**
 * `contains` against a plain scan: randomized documents and search texts (seeded),
 * each search listed whole and paged, over a field list with a full-text index
 * where the adapter keeps one (`title`) and one without (`title`, `status`).
 */
export const readModelSearchContract = (
  name: string,
  open: () => Promise<ReadModelStoreFixture>,
  options: SearchContractOptions,
): void => {
  describe(`ReadModelStore search contract: ${name}`, function () {
    this.timeout(60_000);
    const seed = 20260512;
    let fixture: ReadModelStoreFixture;
    let tasks: DocumentCollection<TaskDoc>;
    let companyA: string;
    let companyB: string;
    /** What each company holds, in creation order, as the plain scan sees it. */
    let held: Map<string, TaskDoc[]>;
    const random = generator(seed);
    const alphabet = [...COMMON, ...WORDS, ...(options.specialCasing ? SPECIAL : [])];
    const text = (maxParts: number): string => Array.from({ length: 1 + random.int(maxParts) }, () => random.pick(alphabet)).join('');

    before(async () => {
      fixture = await open();
      tasks = fixture.store.collection(taskProjection);
      await fixture.store.init();
      companyA = `company-a-${randomUUID()}`;
      companyB = `company-b-${randomUUID()}`;
      let position = 5000;
      const event = (type: string, data: unknown, companyId: string): RecordedEvent => ({
        id: randomUUID(),
        stream: `test-${companyId}`,
        revision: position,
        position: String(++position),
        type,
        data,
        metadata: { source: 'system', correlationId: 'c', companyId },
        recordedAt: new Date().toISOString(),
      });
      const events: RecordedEvent[] = [];
      const count = { [companyA]: 240, [companyB]: 60 };
      for (const companyId of [companyA, companyB]) {
        for (let i = 0; i < count[companyId]!; i++) {
          const data: TaskCreatedData = {
            id: `t${i}`,
            title: text(12),
            status: text(4),
            points: i,
            tags: [],
            owner: null,
            at: '2026-01-01T00:00:00.000Z',
          };
          events.push(event('TaskCreated', data, companyId));
        }
      }
      // Changes after the documents were indexed: renames and deletions.
      for (let i = 0; i < 40; i++) events.push(event('TaskRenamed', { id: `t${random.int(240)}`, title: text(12), at: '2026-02-01T00:00:00.000Z' }, companyA));
      for (let i = 0; i < 25; i++) events.push(event('TaskDeleted', { id: `t${random.int(240)}` }, companyA));
      for (let i = 0; i < events.length; i += 100) await tasks.apply(events.slice(i, i + 100));
      held = new Map();
      for (const companyId of [companyA, companyB]) {
        const page = await tasks.list({ companyId, filters: [], page: 1, limit: 1000, order: 'asc' });
        held.set(companyId, [...page.items]);
      }
      expect(held.get(companyA)!.length).to.be.greaterThan(200);
    });
    after(async () => {
      await fixture.dispose();
    });

    /** The plain scan: the memory adapter's meaning, in its simplest form. */
    const scan = (companyId: string, fields: readonly (keyof TaskDoc)[], search: string): string[] => {
      const needle = search.toLowerCase();
      return held
        .get(companyId)!
        .filter((doc) => search === '' || fields.some((field) => typeof doc[field] === 'string' && (doc[field] as string).toLowerCase().includes(needle)))
        .map((doc) => doc.id);
    };

    const searches = (): string[] => {
      const found: string[] = ['', ' ', 'a', 'A', 'ä', '%', '_', '"', '""', "'", '*', '\\', 'AND', 'or', 'NEAR(', '"*"', '😀', 'ab', 'aB', 'abc'];
      if (options.specialCasing) found.push('İ', 'i̇', 'ß', 'ẞ', 'SS', 'Σ', 'σ', 'ς', 'ı', 'I');
      const docs = held.get(companyA)!;
      for (let i = 0; i < 140; i++) {
        const doc = random.pick(docs);
        const source = i % 3 === 0 ? doc.status : doc.title;
        const chars = [...source];
        const from = random.int(chars.length);
        let piece = chars.slice(from, from + 1 + random.int(6)).join('');
        const shape = random.int(3);
        if (shape === 1) piece = piece.toUpperCase();
        if (shape === 2) piece = piece.toLowerCase();
        found.push(piece);
      }
      for (let i = 0; i < 40; i++) found.push(text(4));
      return [...new Set(found)];
    };

    for (const fields of [['title'], ['title', 'status']] as const) {
      it(`finds exactly what a plain scan finds, searching ${fields.join(' and ')} (seed ${seed})`, async () => {
        const query = (companyId: string, search: string, over: Partial<ListQuery> = {}): ListQuery => ({
          companyId,
          filters: [{ op: 'contains', fields, text: search }],
          page: 1,
          limit: 1000,
          order: 'asc',
          ...over,
        });
        for (const search of searches()) {
          const expected = scan(companyA, fields, search);
          const whole = await tasks.list(query(companyA, search));
          expect(whole.items.map((doc) => doc.id), JSON.stringify(search)).to.deep.equal(expected);
          expect(whole.total, JSON.stringify(search)).to.equal(expected.length);
          const page = await tasks.list(query(companyA, search, { page: 2, limit: 7, order: 'desc' }));
          expect(page.items.map((doc) => doc.id), JSON.stringify(search)).to.deep.equal([...expected].reverse().slice(7, 14));
          expect(page.total).to.equal(expected.length);
          const other = await tasks.list(query(companyB, search));
          expect(other.items.map((doc) => doc.id), JSON.stringify(search)).to.deep.equal(scan(companyB, fields, search));
        }
      });
    }

    it('combines a search with other filters, and two searches', async () => {
      const docs = held.get(companyA)!;
      for (let i = 0; i < 30; i++) {
        const a = [...random.pick(docs).title].slice(0, 1 + random.int(4)).join('');
        const b = [...random.pick(docs).status].slice(0, 1 + random.int(2)).join('');
        const found = await tasks.list({
          companyId: companyA,
          filters: [
            { op: 'contains', fields: ['title'], text: a },
            { op: 'contains', fields: ['status'], text: b },
            { op: 'gte', field: 'points', value: 50 },
          ],
          page: 1,
          limit: 1000,
          order: 'asc',
        });
        const expected = docs
          .filter((doc) => doc.title.toLowerCase().includes(a.toLowerCase()) && doc.status.toLowerCase().includes(b.toLowerCase()) && doc.points >= 50)
          .map((doc) => doc.id);
        expect(found.items.map((doc) => doc.id), JSON.stringify([a, b])).to.deep.equal(expected);
        expect(found.total).to.equal(expected.length);
      }
    });

    it('lower-cases as JavaScript does in the field it indexes (İ, ẞ, the final sigma), exactly as a plain scan', async () => {
      const companyC = `company-c-${randomUUID()}`;
      const titles = ['İstanbul', 'STRAẞE', 'ΟΔΟΣ', 'ıi', 'Straße', 'plain'];
      let position = 900_000;
      await tasks.apply(
        titles.map((title, i) => ({
          id: randomUUID(),
          stream: `test-${companyC}`,
          revision: i,
          position: String(++position),
          type: 'TaskCreated',
          data: { id: `c${i}`, title, status: 'open', points: i, tags: [], owner: null, at: '2026-01-01T00:00:00.000Z' } satisfies TaskCreatedData,
          metadata: { source: 'system', correlationId: 'c', companyId: companyC },
          recordedAt: new Date().toISOString(),
        })),
      );
      for (const search of ['i̇', 'İ', 'ß', 'ẞ', 'ς', 'σ', 'Σ', 'ı', 'I', 'ss', 'odos', 'str']) {
        const expected = titles.flatMap((title, i) => (title.toLowerCase().includes(search.toLowerCase()) ? [`c${i}`] : []));
        const found = await tasks.list({ companyId: companyC, filters: [{ op: 'contains', fields: ['title'], text: search }], page: 1, limit: 100, order: 'asc' });
        expect(found.items.map((doc) => doc.id), JSON.stringify(search)).to.deep.equal(expected);
        expect(found.total, JSON.stringify(search)).to.equal(expected.length);
      }
    });

    it('matches nothing in no fields, and everything with an empty text', async () => {
      const none = await tasks.list({ companyId: companyA, filters: [{ op: 'contains', fields: [], text: 'a' }], page: 1, limit: 10, order: 'asc' });
      expect(none).to.deep.equal({ items: [], total: 0 });
      const all = await tasks.list({ companyId: companyA, filters: [{ op: 'contains', fields: ['title'], text: '' }], page: 1, limit: 10, order: 'asc' });
      expect(all.total).to.equal(held.get(companyA)!.length);
    });
  });
};
