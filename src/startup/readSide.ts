import { ProjectionRunner, READ_MODELS_CHECKPOINT, measureLag, type ProjectionLag } from '../application/subscriptions/ProjectionRunner.js';
import { CheckpointProgress, type ReadModelProgress } from '../application/subscriptions/ReadModelProgress.js';
import type { LoopHealth } from '../application/subscriptions/LoopHealth.js';
import { Lease, READ_MODELS_LEASE } from '../application/subscriptions/Lease.js';
import type { Logger } from '../application/ports/Logger.js';
import { systemClock } from '../shared/Clock.js';
import { PROJECTIONS } from '../features/index.js';
import { buildAddedReadModels } from '../application/replay/buildAddedReadModels.js';
import { CachedDocumentViews } from '../application/queries/CachedDocumentViews.js';
import { ReplicaReadModels, type ReplicaReads } from '../application/queries/ReplicaReadModels.js';
import { judgeHolder, thisProcess } from './localProcess.js';
import type { StartPlan } from './startPlan.js';
import type { Stores } from './Stores.js';

/** How this process sees the read models: it runs the projections, follows the projector's checkpoint, or neither. */
export interface ReadSide {
  /** The projections this process runs (RUN_PROJECTIONS), else null. */
  readonly projections: ProjectionRunner | null;
  /** For read-your-writes: the projections run here, or the projector's checkpoint followed; null without RUN_API. */
  readonly progress: ReadModelProgress | null;
  /** The last position every read model applied, as of now. */
  appliedPosition(): Promise<string | null>;
  /** How far the read models are behind the log; null when this process neither runs nor follows them. */
  readonly lag: (() => Promise<ProjectionLag>) | null;
  /** Calls `listener` after each batch the projections run here commit (none run here: never). Returns what stops it. */
  onApplied(listener: () => void): () => void;
  /** The projector (another process) says its checkpoint moved: a write waiting for it reads it now. */
  checkpointMoved(): void;
  /** Resolves once the projections run here have applied the log as it was at the start. */
  readonly started: Promise<void>;
  /** An API process that reads from a replica (POSTGRES_READ_URL): where each request reads, and how far the replica is behind the log. */
  readonly replica: { readonly reads: ReplicaReads; lag(): Promise<ProjectionLag> } | null;
  stop(): Promise<void>;
}

/** Work that only the process holding the read models' lease does (the retention sweep), started once its projections caught up. */
export type LeasedWork = (progress: ReadModelProgress) => { stop(): Promise<void> };

/**
 * Starts the projections (RUN_PROJECTIONS); `started` resolves once they have
 * applied the log as it was. An API without them (RUN_PROJECTIONS=false) follows
 * the projector's checkpoint instead.
 *
 * The projections run only under the read models' lease: one projector per
 * DATA_DIR (or MongoDB database), taken in the background once the process
 * listens (`started`), so that /ready shows a wait for it (see `Lease`). When
 * another live process keeps it, the start fails with `LeaseHeldError`; when
 * another process takes it over later (this one failed to renew it in time), the
 * projections stop at once and `onFailed` is told;
 * so it is when the read models lose batches they had applied (`ReadModelStore.onLost`).
 * `underLease` starts, in the same process, once the projections have caught up,
 * and stops with them.
 */
export const startReadSide = async (
  plan: StartPlan,
  stores: Stores,
  logger: Logger,
  health: LoopHealth,
  onFailed: (error: Error) => void = () => undefined,
  underLease: readonly LeasedWork[] = [],
): Promise<ReadSide> => {
  const { eventStore, readModels } = stores;
  if (plan.unreadReadModels) {
    logger.warn({ readModels: readModels.kind }, 'RUN_PROJECTIONS without RUN_API on in-memory read models: nothing will read them');
  }
  // Every read model's collection is handed out before init, so its indexes exist whichever roles run here.
  const collections = PROJECTIONS.map((projection) => readModels.collection(projection));
  await readModels.init();
  if (plan.roles.projections) {
    const runner = new ProjectionRunner({
      eventStore,
      readModels,
      collections,
      logger: logger.child({ role: 'projections' }),
      // The log no longer holds where the read models stand (EventStoreDB restored from an older copy): stop.
      onFailed,
    });
    // The lease is taken once the process listens, so that /ready shows a wait for it.
    const stopping = new AbortController();
    let lease: Lease | null = null;
    let stopLost: (() => void) | undefined;
    const working: { stop(): Promise<void> }[] = [];
    const stopWork = () => Promise.all(working.splice(0).map((work) => work.stop()));
    const leased = (async () => {
      lease = await Lease.acquire({
        leases: readModels.leases,
        name: READ_MODELS_LEASE,
        claimant: thisProcess('projector'),
        judgeHolder,
        clock: systemClock,
        logger: logger.child({ role: 'projector-lease' }),
        health,
        signal: stopping.signal,
        onWaiting: (what) => runner.waitingFor(what),
        onLost: (error) => {
          if (readModels instanceof CachedDocumentViews) readModels.deactivate();
          void stopWork();
          void runner.stop();
          onFailed(error);
        },
      });
      stopLost = readModels.onLost?.((error) => {
        logger.error({ err: error }, 'read models lost applied batches; stopping');
        if (readModels instanceof CachedDocumentViews) readModels.deactivate();
        void stopWork();
        void runner.stop();
        onFailed(error);
      });
      // Read models this release adds are built from the log before the projector resumes.
      await buildAddedReadModels({ eventStore, readModels, projections: PROJECTIONS, logger: logger.child({ role: 'projections' }) });
      // Every change of the read models now goes through this process: warm views may be answered from memory.
      if (readModels instanceof CachedDocumentViews && !stopping.signal.aborted) readModels.activate();
    })();
    const started = leased.then(async () => {
      if (stopping.signal.aborted) return;
      await runner.start();
      if (!stopping.signal.aborted) working.push(...underLease.map((start) => start(runner)));
    });
    // Awaited by the start after it begins listening; marked handled here so a failure meanwhile is not an unhandled rejection.
    started.catch(() => undefined);
    return {
      started,
      projections: runner,
      progress: runner,
      appliedPosition: async () => runner.position,
      onApplied: (listener) => runner.onApplied(listener),
      checkpointMoved: () => undefined,
      lag: () => runner.lag(),
      replica: null,
      stop: async () => {
        stopping.abort(new Error('stopping'));
        if (readModels instanceof CachedDocumentViews) readModels.deactivate();
        await leased.catch(() => undefined);
        stopLost?.();
        await stopWork();
        await runner.stop();
        await (lease as Lease | null)?.release();
      },
    };
  }
  const never = () => () => undefined;
  if (!plan.roles.api) {
    return {
      started: Promise.resolve(),
      projections: null,
      progress: null,
      appliedPosition: async () => null,
      onApplied: never,
      checkpointMoved: () => undefined,
      lag: null,
      replica: null,
      stop: async () => undefined,
    };
  }
  // While a write waits for the projector: a SQLite checkpoint is a lookup in a file on this machine
  // (microseconds), read every 2 ms; MongoDB's a round trip, every 20 ms.
  const followEveryMs = readModels.kind === 'sqlite' ? 2 : 20;
  const followed = new CheckpointProgress(() => readModels.checkpoints.load(READ_MODELS_CHECKPOINT), followEveryMs, {
    health,
    logger: logger.child({ role: 'read-models-follower' }),
  });
  return {
    started: Promise.resolve(),
    projections: null,
    progress: followed,
    appliedPosition: () => followed.refresh(),
    onApplied: never,
    checkpointMoved: () => followed.lookNow(),
    lag: async () => measureLag(eventStore, await followed.refresh()),
    replica: readModels instanceof ReplicaReadModels ? replicaOf(readModels.reads, eventStore) : null,
    stop: async () => followed.stop(),
  };
};

/** A replica's reads, and its lag behind the log as its replicated checkpoint shows it. */
const replicaOf = (reads: ReplicaReads, eventStore: Stores['eventStore']): NonNullable<ReadSide['replica']> => ({
  reads,
  lag: async () => measureLag(eventStore, await reads.replicaPosition()),
});
