import { AsyncLocalStorage } from 'node:async_hooks';
import type { RecordedEvent } from '../ports/EventStore.js';
import type { DocumentCollection, Projection, ReadModelDocument, ReadModelStore, StagingReadModels } from '../ports/ReadModelStore.js';
import type { ReadModelProgress } from '../subscriptions/ReadModelProgress.js';
import type { Position } from '../../shared/Position.js';

/** Progress followed from a checkpoint another process writes (`CheckpointProgress`). */
export interface FollowedProgress extends ReadModelProgress {
  /** Reads the checkpoint now. */
  refresh(): Promise<Position | null>;
  stop(): void;
}

/** Where a request's reads of the read models go. */
export type ReadSource = 'replica' | 'primary';

/** Why a read that could have gone to the replica went to the primary. */
export type FallbackReason = 'lag' | 'unavailable';

/** A request's choice, kept for every read it makes (mutable: a wait later in the request may move it to the primary). */
interface RequestReads {
  source: ReadSource;
}

/** After a replica read or checkpoint read fails, how long reads go to the primary without trying it. */
export const REPLICA_RETRY_AFTER_MS = 5_000;

/**
 * Reads from a replica of the read models (POSTGRES_READ_URL), chosen per request.
 *
 * A request whose reads may go to the replica runs inside `within`; its reads go
 * there unless `waitFor` moved it to the primary. Every other read (a command's,
 * a credential's, the console's, the admin API's: anything outside `within`) goes
 * to the primary, as do all writes.
 *
 * Read-your-writes (`waitFor`): the replica has applied a position once its own
 * copy of the read models' checkpoint is at or past it (the checkpoint commits with
 * the documents, and a replica replays commits in order). A wait for a position
 * first waits for the replica, at most `fallbackAfterMs`; past that bound the
 * request reads from the primary instead, once the primary has applied the
 * position (within what is left of the request's wait), and the fallback is
 * counted. A replica that fails (a read or a checkpoint read) is left alone for
 * `REPLICA_RETRY_AFTER_MS`: meanwhile every request reads from the primary.
 */
export class ReplicaReads {
  private readonly requests = new AsyncLocalStorage<RequestReads>();
  private downUntil = 0;
  /** Reads moved to the primary, by reason (for /metrics and tests). */
  readonly fallbacks: Record<FallbackReason, number> = { lag: 0, unavailable: 0 };
  /** Requests whose reads stayed on the replica (for /metrics and tests). */
  replicaRequests = 0;

  constructor(
    /** How far the replica's read models have applied the log (its replicated checkpoint). */
    private readonly replica: FollowedProgress,
    /** How far the primary's have (the projector's checkpoint). */
    private readonly primary: FollowedProgress,
    private readonly fallbackAfterMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** True while reads stay off a replica that failed lately. */
  get replicaDown(): boolean {
    return this.now() < this.downUntil;
  }

  /** Runs a request whose reads may go to the replica. */
  within<T>(work: () => Promise<T>): Promise<T> {
    const reads: RequestReads = { source: this.replicaDown ? 'primary' : 'replica' };
    if (reads.source === 'primary') this.fallbacks.unavailable += 1;
    return this.requests.run(reads, async () => {
      try {
        return await work();
      } finally {
        if (reads.source === 'replica') this.replicaRequests += 1;
      }
    });
  }

  /** Where the current request's reads go (outside `within`: the primary). */
  source(): ReadSource {
    return this.requests.getStore()?.source ?? 'primary';
  }

  /**
   * Waits (bounded by `timeoutMs` in all) until the current request's reads show
   * `position`: on the replica within `fallbackAfterMs`, else on the primary, where
   * its reads then go. Outside `within`, waits for the primary. True when reached.
   */
  async waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    const reads = this.requests.getStore();
    if (!reads || reads.source === 'primary') return this.primary.waitFor(position, timeoutMs);
    const started = this.now();
    if (await this.replica.waitFor(position, Math.min(this.fallbackAfterMs, timeoutMs))) return true;
    reads.source = 'primary';
    this.fallbacks.lag += 1;
    return this.primary.waitFor(position, Math.max(0, timeoutMs - (this.now() - started)));
  }

  /** Where the replica's read models stand now (its replicated checkpoint, read now). */
  replicaPosition(): Promise<Position | null> {
    return this.replica.refresh();
  }

  /** Ends the waits under way (at shutdown). */
  stop(): void {
    this.replica.stop();
    this.primary.stop();
  }

  /** A replica read failed: this request reads from the primary, and so does every request for a while. */
  failed(): void {
    this.downUntil = this.now() + REPLICA_RETRY_AFTER_MS;
    const reads = this.requests.getStore();
    if (reads && reads.source === 'replica') {
      reads.source = 'primary';
      this.fallbacks.unavailable += 1;
    }
  }
}

/**
 * The read models of an API process with a replica: every write, checkpoint and
 * lease on the primary's store; each read of a document on the replica's when the
 * current request reads from it (`ReplicaReads.source`), else on the primary's. A
 * replica read that throws is read again from the primary, and the replica is left
 * alone for a while (`ReplicaReads.failed`): no request fails because a replica does.
 */
export class ReplicaReadModels implements ReadModelStore {
  private readonly inner = new WeakMap<DocumentCollection<ReadModelDocument>, DocumentCollection<ReadModelDocument>>();

  constructor(
    private readonly primary: ReadModelStore,
    private readonly replica: ReadModelStore,
    /** Where each request reads (shared with the HTTP layer's read-your-writes). */
    readonly reads: ReplicaReads,
  ) {}

  get kind(): ReadModelStore['kind'] {
    return this.primary.kind;
  }

  get durable(): boolean {
    return this.primary.durable;
  }

  get checkpoints(): ReadModelStore['checkpoints'] {
    return this.primary.checkpoints;
  }

  get leases(): ReadModelStore['leases'] {
    return this.primary.leases;
  }

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    const primary = this.primary.collection(projection);
    const replica = this.replica.collection(projection);
    const read = async <T>(from: (collection: DocumentCollection<D>) => Promise<T>): Promise<T> => {
      if (this.reads.source() === 'primary') return from(primary);
      try {
        return await from(replica);
      } catch {
        this.reads.failed();
        return from(primary);
      }
    };
    const wrapped: DocumentCollection<D> = {
      projection: primary.projection,
      get: (companyId, id) => read((collection) => collection.get(companyId, id)),
      getView: (companyId, id) => read((collection) => collection.getView(companyId, id)),
      list: (query) => read((collection) => collection.list(query)),
      listCreatedAfter: (companyId, after, limit) => read((collection) => collection.listCreatedAfter(companyId, after, limit)),
      apply: (events) => primary.apply(events),
      clear: () => primary.clear(),
      scan: () => primary.scan(),
    };
    this.inner.set(wrapped as DocumentCollection<ReadModelDocument>, primary as DocumentCollection<ReadModelDocument>);
    return wrapped;
  }

  applyBatch(collections: readonly DocumentCollection<ReadModelDocument>[], events: readonly RecordedEvent[], checkpoint: string): Promise<void> {
    return this.primary.applyBatch(
      collections.map((collection) => this.inner.get(collection) ?? collection),
      events,
      checkpoint,
    );
  }

  init(): Promise<void> {
    return this.primary.init();
  }

  readModelsToBuild(): Promise<readonly string[]> {
    return this.primary.readModelsToBuild();
  }

  staging(): Promise<StagingReadModels> {
    return this.primary.staging();
  }

  async close(): Promise<void> {
    this.reads.stop();
    await Promise.allSettled([this.replica.close()]);
    await this.primary.close();
  }
}
