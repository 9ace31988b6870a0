import { applyThenCheckpoint } from '../../application/subscriptions/applyThenCheckpoint.js';
import { serializedView } from '../../application/ports/documentView.js';
import type { CheckpointStore } from '../../application/ports/CheckpointStore.js';
import type { LeaseStore } from '../../application/ports/LeaseStore.js';
import type { RecordedEvent } from '../../application/ports/EventStore.js';
import type {
  DocumentCollection,
  DocumentView,
  Filter,
  ListQuery,
  Page,
  Projection,
  ProjectionTarget,
  ReadModelDocument,
  ReadModelStore,
  ReplayedCheckpoint,
  StagingReadModels,
} from '../../application/ports/ReadModelStore.js';
import { comparePositions, type Position } from '../../shared/Position.js';
import { SEPARATOR, compileFilters, haystackOf, valueAt } from './compileFilter.js';
import { SubstringIndex } from './SubstringIndex.js';
import { MemoryLeaseStore } from './MemoryLeaseStore.js';
import { EqualityIndex, UNINDEXED, indexedValue } from './EqualityIndex.js';

interface Entry<D> {
  doc: D;
  deleted: boolean;
  /** Index in the bucket's creation-order array. */
  index: number;
  /** Log position of the event that created the document. */
  readonly created: Position;
}

/**
 * One company's documents: by id, and in creation order (so listing never sorts),
 * with a substring index per field list that searches have used.
 */
class Bucket<D> {
  readonly byId = new Map<string, Entry<D>>();
  order: Entry<D>[] = [];
  private indexes = new Map<string, SubstringIndex>();
  private equalities = new Map<string, EqualityIndex>();
  private deletedCount = 0;
  /**
   * Whether `order` is also sorted by creating position. It is while events come in
   * log order; a replay from an older checkpoint that re-creates a deleted document
   * appends an older position, and `createdAfter` then sorts instead of searching.
   */
  private inPositionOrder = true;

  add(id: string, doc: D, created: Position): void {
    const last = this.order[this.order.length - 1];
    if (last && comparePositions(created, last.created) < 0) this.inPositionOrder = false;
    const entry: Entry<D> = { doc, deleted: false, index: this.order.length, created };
    this.byId.set(id, entry);
    this.order.push(entry);
  }

  /** Up to `limit` documents created after `after`, in creation order: a binary search, then the page. */
  createdAfter(after: Position | null, limit: number): D[] {
    const isAfter = (entry: Entry<D>) => after === null || comparePositions(entry.created, after) > 0;
    if (!this.inPositionOrder) {
      // Array.prototype.sort is stable: documents created by one event keep their order.
      const entries = this.order.filter((entry) => !entry.deleted && isAfter(entry));
      entries.sort((a, b) => comparePositions(a.created, b.created));
      return entries.slice(0, Math.max(0, limit)).map((entry) => entry.doc);
    }
    let low = 0;
    let high = this.order.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (isAfter(this.order[middle]!)) high = middle;
      else low = middle + 1;
    }
    const page: D[] = [];
    for (let i = low; i < this.order.length && page.length < limit; i++) {
      const entry = this.order[i]!;
      if (!entry.deleted) page.push(entry.doc);
    }
    return page;
  }

  replace(entry: Entry<D>, doc: D): void {
    entry.doc = doc;
    this.invalidate(entry.index);
  }

  private invalidate(i: number): void {
    for (const index of this.indexes.values()) index.invalidate(i);
    for (const index of this.equalities.values()) index.invalidate(i);
  }

  remove(id: string): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    entry.deleted = true;
    this.byId.delete(id);
    this.invalidate(entry.index);
    // Compact lazily so a delete costs O(1) on average; the indexes are rebuilt when next used.
    if (++this.deletedCount > 64 && this.deletedCount * 2 > this.order.length) {
      this.order = this.order.filter((e) => !e.deleted);
      this.order.forEach((e, i) => (e.index = i));
      this.indexes.clear();
      this.equalities.clear();
      this.deletedCount = 0;
    }
  }

  /** The equality index over `field`, created on first use. */
  equalityFor(field: string): EqualityIndex {
    let index = this.equalities.get(field);
    if (!index) {
      index = new EqualityIndex(
        (i) => {
          const entry = this.order[i]!;
          return entry.deleted ? UNINDEXED : indexedValue(valueAt(entry.doc as object, field));
        },
        () => this.order.length,
      );
      this.equalities.set(field, index);
    }
    return index;
  }

  /** The substring index over `fields`, created on first use. */
  indexFor(fields: readonly string[]): SubstringIndex {
    const key = fields.join(SEPARATOR);
    let index = this.indexes.get(key);
    if (!index) {
      index = new SubstringIndex(
        (i) => {
          const entry = this.order[i]!;
          return entry.deleted ? null : haystackOf(entry.doc as object, fields);
        },
        () => this.order.length,
      );
      this.indexes.set(key, index);
    }
    return index;
  }
}

/**
 * How a list query reads a bucket: where its candidates come from (the shortest
 * equality posting list, else the first search's matches, else every document in
 * creation order) and the check every candidate must pass (every filter). The
 * source only decides how many documents are looked at, never the answer.
 */
interface QueryPlan<D> {
  readonly source:
    | { readonly kind: 'postings'; readonly list: readonly number[] }
    | { readonly kind: 'search'; readonly index: SubstringIndex; readonly needle: string }
    | { readonly kind: 'all' };
  accepts(i: number, doc: D): boolean;
}

/** The plan of `filters` on `bucket`; null when nothing can match (a search for the field separator). */
const planQuery = <D extends object>(bucket: Bucket<D>, filters: readonly Filter[]): QueryPlan<D> | null => {
  // `contains` filters are answered by the bucket's substring indexes; the rest by one predicate.
  const searches: { index: SubstringIndex; needle: string }[] = [];
  const others: Filter[] = [];
  for (const filter of filters) {
    if (filter.op !== 'contains') others.push(filter);
    else if (filter.text.includes(SEPARATOR)) return null;
    else if (filter.text !== '') searches.push({ index: bucket.indexFor(filter.fields), needle: filter.text.toLowerCase() });
  }
  let postings: number[] | null = null;
  for (const filter of others) {
    if (filter.op !== 'eq') continue;
    const list = bucket.equalityFor(filter.field).candidates(filter.value);
    if (postings === null || list.length < postings.length) postings = list;
  }
  const [first, ...rest] = searches;
  const source: QueryPlan<D>['source'] =
    postings !== null ? { kind: 'postings', list: postings } : first ? { kind: 'search', ...first } : { kind: 'all' };
  const checked = source.kind === 'search' ? rest : searches;
  const matches = others.length > 0 ? compileFilters(others) : null;
  return {
    source,
    accepts: (i, doc) => checked.every((search) => search.index.contains(i, search.needle)) && (matches === null || matches(doc)),
  };
};

/** The candidates' indexes in the bucket's creation order, ascending or descending. */
function* candidatesOf<D>(plan: QueryPlan<D>, count: number, ascending: boolean): Generator<number> {
  const { source } = plan;
  if (source.kind === 'search') {
    yield* source.index.matches(source.needle, ascending);
    return;
  }
  const length = source.kind === 'postings' ? source.list.length : count;
  const at = source.kind === 'postings' ? (k: number) => source.list[k]! : (k: number) => k;
  for (let n = 0; n < length; n++) yield at(ascending ? n : length - 1 - n);
}

class MemoryCollection<D extends ReadModelDocument> implements DocumentCollection<D> {
  private buckets = new Map<string, Bucket<D>>();

  constructor(readonly projection: Projection<D>) {}

  private bucket(companyId: string): Bucket<D> {
    let bucket = this.buckets.get(companyId);
    if (!bucket) this.buckets.set(companyId, (bucket = new Bucket<D>()));
    return bucket;
  }

  async get(companyId: string, id: string): Promise<D | null> {
    return this.buckets.get(companyId)?.byId.get(id)?.doc ?? null;
  }

  async getView(companyId: string, id: string): Promise<DocumentView<D> | null> {
    return serializedView(this.projection, await this.get(companyId, id));
  }

  async list(query: ListQuery): Promise<Page<D>> {
    const bucket = this.buckets.get(query.companyId);
    const plan = bucket && planQuery(bucket, query.filters);
    if (!bucket || !plan) return { items: [], total: 0 };
    const from = (query.page - 1) * query.limit;
    const to = from + query.limit;
    const items: D[] = [];
    let total = 0;
    for (const i of candidatesOf(plan, bucket.order.length, query.order === 'asc')) {
      const entry = bucket.order[i]!;
      if (entry.deleted || !plan.accepts(i, entry.doc)) continue;
      if (total >= from && total < to) items.push(entry.doc);
      total++;
    }
    return { items, total };
  }

  async listCreatedAfter(companyId: string, after: Position | null, limit: number): Promise<D[]> {
    return this.buckets.get(companyId)?.createdAfter(after, limit) ?? [];
  }

  async apply(events: readonly RecordedEvent[]): Promise<void> {
    this.applySync(events);
  }

  /** Synchronous fold: one call per batch keeps a rebuild close to the raw read rate. */
  applySync(events: readonly RecordedEvent[]): void {
    const { eventTypes } = this.projection;
    for (const event of events) {
      if (!eventTypes.has(event.type)) continue;
      for (const target of this.projection.targets(event)) this.applyTo(target, event);
    }
  }

  private applyTo(target: ProjectionTarget, event: RecordedEvent): void {
    const bucket = this.bucket(target.companyId);
    if (target.kind === 'id') {
      this.fold(bucket, target.id, bucket.byId.get(target.id)?.doc ?? null, event);
      return;
    }
    // Through the field's equality index (a superset, checked here): a scan of the
    // company's documents per event made a rebuild quadratic (every renamed contact
    // scanned every deal).
    const matching = bucket
      .equalityFor(target.field)
      .candidates(target.value)
      .map((i) => bucket.order[i]!)
      .filter((e) => !e.deleted && valueAt(e.doc, target.field) === target.value);
    for (const entry of matching) this.fold(bucket, entry.doc.id, entry.doc, event);
  }

  private fold(bucket: Bucket<D>, id: string, doc: D | null, event: RecordedEvent): void {
    if (doc && comparePositions(doc.position, event.position) >= 0) return;
    const next = this.projection.evolve(doc, event);
    if (next === doc) return;
    if (next === null) {
      bucket.remove(id);
      return;
    }
    if (next.id !== id || (doc && next.companyId !== doc.companyId)) {
      throw new Error(`Projection ${this.projection.name} moved document ${id} to ${next.companyId}/${next.id}`);
    }
    const entry = bucket.byId.get(id);
    if (entry) bucket.replace(entry, next);
    else bucket.add(id, next, event.position);
  }

  async clear(): Promise<void> {
    this.buckets = new Map();
  }

  async *scan(): AsyncIterable<D> {
    for (const bucket of [...this.buckets.values()]) {
      for (const entry of [...bucket.byId.values()]) yield entry.doc;
    }
  }

  /**
   * Takes over the documents of a staged collection of the same projection. The
   * live collection object stays the one every reader holds, so they all see the
   * rebuilt documents from the next read on.
   */
  adopt(staged: MemoryCollection<D>): void {
    this.buckets = staged.buckets;
    staged.buckets = new Map();
  }
}

/** Collections by projection name, each bound to one projection. */
class MemoryCollections {
  readonly byName = new Map<string, MemoryCollection<ReadModelDocument>>();

  collection<D extends ReadModelDocument>(projection: Projection<D>): MemoryCollection<D> {
    const existing = this.byName.get(projection.name);
    if (existing) {
      if (existing.projection !== (projection as unknown)) {
        throw new Error(`Collection ${projection.name} is already bound to another projection`);
      }
      return existing as unknown as MemoryCollection<D>;
    }
    const created = new MemoryCollection(projection);
    this.byName.set(projection.name, created as unknown as MemoryCollection<ReadModelDocument>);
    return created;
  }
}

/** A rebuild's collections in memory; `swap` hands their documents to the live ones. */
class MemoryStaging implements StagingReadModels {
  private readonly staged = new MemoryCollections();
  private done = false;

  constructor(
    private readonly live: MemoryCollections,
    private readonly checkpoints: CheckpointStore,
  ) {}

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    if (this.done) throw new Error('This staging was already swapped in or discarded');
    return this.staged.collection(projection);
  }

  async init(): Promise<void> {}

  async applyBatch(collections: readonly DocumentCollection<ReadModelDocument>[], events: readonly RecordedEvent[]): Promise<void> {
    for (const collection of collections) await collection.apply(events);
  }

  async swap(checkpoint: ReplayedCheckpoint): Promise<void> {
    if (this.done) throw new Error('This staging was already swapped in or discarded');
    this.done = true;
    for (const staged of this.staged.byName.values()) this.live.collection(staged.projection).adopt(staged);
    if (checkpoint.position === null) await this.checkpoints.reset(checkpoint.name);
    else await this.checkpoints.save(checkpoint.name, checkpoint.position);
  }

  async discard(): Promise<void> {
    this.done = true;
    this.staged.byName.clear();
  }
}

class MemoryCheckpointStore implements CheckpointStore {
  private readonly positions = new Map<string, Position>();
  async load(name: string): Promise<Position | null> {
    return this.positions.get(name) ?? null;
  }
  async save(name: string, position: Position): Promise<void> {
    this.positions.set(name, position);
  }
  async reset(name: string): Promise<void> {
    this.positions.delete(name);
  }
}

/** Read models in memory, rebuilt from the log at start (embedded mode). */
export class MemoryReadModelStore implements ReadModelStore {
  readonly kind = 'memory' as const;
  readonly durable = false;
  readonly checkpoints: CheckpointStore = new MemoryCheckpointStore();
  readonly leases: LeaseStore = new MemoryLeaseStore();
  private readonly collections = new MemoryCollections();

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    return this.collections.collection(projection);
  }

  async init(): Promise<void> {}

  /** Rebuilt from the log at every start: nothing is ever missing. */
  async readModelsToBuild(): Promise<readonly string[]> {
    return [];
  }

  /** Applies the batch to each collection, then keeps the checkpoint (both in memory, so nothing to make atomic). */
  async applyBatch(
    collections: readonly DocumentCollection<ReadModelDocument>[],
    events: readonly RecordedEvent[],
    checkpoint: string,
  ): Promise<void> {
    await applyThenCheckpoint(this.checkpoints, collections, events, checkpoint);
  }

  async staging(): Promise<StagingReadModels> {
    return new MemoryStaging(this.collections, this.checkpoints);
  }

  async close(): Promise<void> {}
}
