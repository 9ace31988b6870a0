import type { CheckpointStore } from '../../application/ports/CheckpointStore.js';
import type { RecordedEvent } from '../../application/ports/EventStore.js';
import type {
  DocumentCollection,
  ListQuery,
  Page,
  Projection,
  ProjectionTarget,
  ReadModelDocument,
  ReadModelStore,
} from '../../application/ports/ReadModelStore.js';
import { comparePositions, type Position } from '../../shared/Position.js';
import { compileFilters, valueAt } from './compileFilter.js';

interface Entry<D> {
  doc: D;
  deleted: boolean;
}

/** One company's documents: by id, and in creation order (so listing never sorts). */
class Bucket<D> {
  readonly byId = new Map<string, Entry<D>>();
  order: Entry<D>[] = [];
  private deletedCount = 0;

  add(id: string, doc: D): void {
    const entry = { doc, deleted: false };
    this.byId.set(id, entry);
    this.order.push(entry);
  }

  remove(id: string): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    entry.deleted = true;
    this.byId.delete(id);
    // Compact lazily so a delete costs O(1) on average.
    if (++this.deletedCount > 64 && this.deletedCount * 2 > this.order.length) {
      this.order = this.order.filter((e) => !e.deleted);
      this.deletedCount = 0;
    }
  }
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

  async list(query: ListQuery): Promise<Page<D>> {
    const bucket = this.buckets.get(query.companyId);
    if (!bucket) return { items: [], total: 0 };
    const matches = compileFilters(query.filters);
    const from = (query.page - 1) * query.limit;
    const to = from + query.limit;
    const items: D[] = [];
    let total = 0;
    const order = bucket.order;
    const visit = (entry: Entry<D>): void => {
      if (entry.deleted || !matches(entry.doc)) return;
      if (total >= from && total < to) items.push(entry.doc);
      total++;
    };
    if (query.order === 'asc') for (let i = 0; i < order.length; i++) visit(order[i]!);
    else for (let i = order.length - 1; i >= 0; i--) visit(order[i]!);
    return { items, total };
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
    const matching = bucket.order.filter((e) => !e.deleted && valueAt(e.doc, target.field) === target.value);
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
    if (entry) entry.doc = next;
    else bucket.add(id, next);
  }

  async clear(): Promise<void> {
    this.buckets = new Map();
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
  private readonly collections = new Map<string, MemoryCollection<ReadModelDocument>>();

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    const existing = this.collections.get(projection.name);
    if (existing) {
      if (existing.projection !== (projection as unknown)) {
        throw new Error(`Collection ${projection.name} is already bound to another projection`);
      }
      return existing as unknown as DocumentCollection<D>;
    }
    const created = new MemoryCollection(projection);
    this.collections.set(projection.name, created as unknown as MemoryCollection<ReadModelDocument>);
    return created;
  }

  async init(): Promise<void> {}

  async close(): Promise<void> {}
}
