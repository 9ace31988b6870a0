import type { RecordedEvent } from '../ports/EventStore.js';
import type {
  DocumentCollection,
  DocumentView,
  Projection,
  ReadModelDocument,
  ReadModelStore,
  StagingReadModels,
} from '../ports/ReadModelStore.js';

/** A view answered from memory at most this long after it was read (whatever else happens, a change shows within it). */
export const CACHED_VIEW_MS = 1_000;
/** Views kept at most; past it the cache starts again empty. */
const MOST_KEPT = 20_000;

/** Stands for the company of an event that names none: whatever it changes, every company's views go. */
const EVERY_COMPANY = '\u0000every';

interface Kept {
  readonly view: DocumentView<ReadModelDocument> | null;
  readonly at: number;
}

/**
 * A store's views of single documents (`getView`, what a GET by id answers) kept in
 * this process's memory, for a process that writes the read models itself (it runs
 * the projections and holds their lease), so that a GET of a warm document costs
 * no statement. Correct because every change of the documents goes through this
 * process:
 *
 * - **Invalidated by the log.** Each batch of events the projections apply drops the
 *   views of every company the batch touches, once the batch is committed and before
 *   its position counts as applied; a read-your-writes wait therefore never finds a
 *   view older than what it waited for. A read that was under way while a batch of
 *   its company was being applied is not kept (it may have read the documents
 *   before the commit).
 * - **Evicted within a second** of anything: each view is answered for at most
 *   `CACHED_VIEW_MS`. A delete, an erasure, a suspension or a company's deletion is
 *   an event, applied here, that drops its company's views at once; a key
 *   revocation is checked before any read (`freshCredentialVerifier`).
 * - **Only while this process writes the read models** (`activate`): before it
 *   holds their lease another process may write them, so nothing is kept. A rebuild
 *   (`staging`) and a compaction drop everything.
 * - Other companies' views stay: one company's writes do not make another's reads slower.
 */
export class CachedDocumentViews implements ReadModelStore {
  private readonly byCompany = new Map<string, Map<string, Kept>>();
  /** Per company: batches of it begun and committed (a read under way while either moved is not kept). */
  private readonly generations = new Map<string, number>();
  private kept = 0;
  /** Moves at every clear (a read under way while it moved is not kept). */
  private epoch = 0;
  private active = false;
  private readonly inner = new WeakMap<DocumentCollection<ReadModelDocument>, DocumentCollection<ReadModelDocument>>();
  /** Views answered from memory, and read from the store (for /metrics and tests). */
  readonly counts = { hits: 0, misses: 0 };

  constructor(
    private readonly store: ReadModelStore,
    /** The projections whose views are kept: those whose documents sit under the company of the events that change them. */
    private readonly projections: ReadonlySet<string>,
  ) {}

  get kind(): ReadModelStore['kind'] {
    return this.store.kind;
  }

  get durable(): boolean {
    return this.store.durable;
  }

  get checkpoints(): ReadModelStore['checkpoints'] {
    return this.store.checkpoints;
  }

  get leases(): ReadModelStore['leases'] {
    return this.store.leases;
  }

  /** This process now writes the read models (it holds their lease): views may be kept from now on. */
  activate(): void {
    this.clear();
    this.active = true;
  }

  /** It no longer does: nothing is kept, and what was is dropped. */
  deactivate(): void {
    this.active = false;
    this.clear();
  }

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    const collection = this.store.collection(projection);
    const wrapped: DocumentCollection<D> = {
      projection: collection.projection,
      get: (companyId, id) => collection.get(companyId, id),
      getView: this.projections.has(projection.name)
        ? (companyId, id) => this.view(projection.name, collection, companyId, id)
        : (companyId, id) => collection.getView(companyId, id),
      list: (query) => collection.list(query),
      listCreatedAfter: (companyId, after, limit) => collection.listCreatedAfter(companyId, after, limit),
      apply: async (events) => {
        const companies = this.begin(events);
        try {
          await collection.apply(events);
        } finally {
          this.end(companies);
        }
      },
      clear: async () => {
        try {
          await collection.clear();
        } finally {
          this.clear();
        }
      },
      scan: () => collection.scan(),
    };
    this.inner.set(wrapped as DocumentCollection<ReadModelDocument>, collection as DocumentCollection<ReadModelDocument>);
    return wrapped;
  }

  async applyBatch(collections: readonly DocumentCollection<ReadModelDocument>[], events: readonly RecordedEvent[], checkpoint: string): Promise<void> {
    const companies = this.begin(events);
    try {
      await this.store.applyBatch(
        collections.map((collection) => this.inner.get(collection) ?? collection),
        events,
        checkpoint,
      );
    } finally {
      this.end(companies);
    }
  }

  onLost(listener: (error: Error) => void): () => void {
    return this.store.onLost?.(listener) ?? (() => undefined);
  }

  init(): Promise<void> {
    return this.store.init();
  }

  readModelsToBuild(): Promise<readonly string[]> {
    return this.store.readModelsToBuild();
  }

  async upgrade(logger: Parameters<NonNullable<ReadModelStore['upgrade']>>[0]): Promise<void> {
    await this.store.upgrade?.(logger);
  }

  async staging(): Promise<StagingReadModels> {
    const staging = await this.store.staging();
    return {
      collection: (projection) => staging.collection(projection),
      init: () => staging.init(),
      applyBatch: (collections, events) => staging.applyBatch(collections, events),
      swap: async (checkpoint) => {
        try {
          await staging.swap(checkpoint);
        } finally {
          this.clear();
        }
      },
      discard: () => staging.discard(),
    };
  }

  async compact(): Promise<{ readonly walTruncated: boolean }> {
    this.clear();
    return (await this.store.compact?.()) ?? { walTruncated: true };
  }

  close(): Promise<void> {
    this.deactivate();
    return this.store.close();
  }

  private async view<D extends ReadModelDocument>(
    name: string,
    collection: DocumentCollection<D>,
    companyId: string,
    id: string,
  ): Promise<DocumentView<D> | null> {
    if (!this.active) return collection.getView(companyId, id);
    const key = `${name}\u0000${id}`;
    const now = Date.now();
    const kept = this.byCompany.get(companyId)?.get(key);
    if (kept && now - kept.at < CACHED_VIEW_MS) {
      this.counts.hits += 1;
      return kept.view as DocumentView<D> | null;
    }
    this.counts.misses += 1;
    const generation = this.generations.get(companyId) ?? 0;
    const epoch = this.epoch;
    const view = await collection.getView(companyId, id);
    // Kept only when no batch of the company began or ended meanwhile, nothing was cleared, and
    // found: an id not found yet may be a create on its way (its read waits for it, and looks again).
    if (this.active && view !== null && epoch === this.epoch && (this.generations.get(companyId) ?? 0) === generation) {
      if (this.kept >= MOST_KEPT) this.clear();
      let views = this.byCompany.get(companyId);
      if (!views) this.byCompany.set(companyId, (views = new Map()));
      if (!views.has(key)) this.kept += 1;
      views.set(key, { view: view as DocumentView<ReadModelDocument>, at: now });
    }
    return view;
  }

  /** A batch begins: the companies it touches, whose reads under way will not be kept. */
  private begin(events: readonly RecordedEvent[]): Set<string> {
    const companies = new Set<string>();
    for (const event of events) companies.add(event.metadata.companyId ?? EVERY_COMPANY);
    if (companies.has(EVERY_COMPANY)) this.epoch += 1;
    for (const company of companies) this.generations.set(company, (this.generations.get(company) ?? 0) + 1);
    return companies;
  }

  /** It is committed (or failed): their views go, and reads begun before this are not kept. */
  private end(companies: ReadonlySet<string>): void {
    // An event of no company (the platform's own): every view goes.
    if (companies.has(EVERY_COMPANY)) this.clear();
    for (const company of companies) {
      this.generations.set(company, (this.generations.get(company) ?? 0) + 1);
      const views = this.byCompany.get(company);
      if (views) {
        this.kept -= views.size;
        this.byCompany.delete(company);
      }
    }
  }

  private clear(): void {
    this.byCompany.clear();
    this.kept = 0;
    // Reads under way do not keep what they find.
    this.epoch += 1;
  }
}
