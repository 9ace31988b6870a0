import type { EventStore, RecordedEvent, ResumePointNotInLogError } from '../ports/EventStore.js';
import type { DocumentCollection, ReadModelDocument, ReadModelStore } from '../ports/ReadModelStore.js';
import type { Logger } from '../ports/Logger.js';
import { compareNullablePositions, type Position } from '../../shared/Position.js';
import { PositionWaiters, type ReadModelProgress } from './ReadModelProgress.js';
import type { SubscriptionStatusSnapshot } from './SubscriptionStatus.js';
import { LogFollower } from './LogFollower.js';
import { UndecodableEventError } from '../versioning/UndecodableEventError.js';
import { ReadModelsAheadOfLogError, ReadModelsOfAnotherLogError } from './ReadModelsAheadOfLogError.js';

/** The checkpoint name of the read models' subscription. */
export const READ_MODELS_CHECKPOINT = 'read-models';

export interface ProjectionRunnerDeps {
  readonly eventStore: EventStore;
  readonly readModels: ReadModelStore;
  readonly collections: readonly DocumentCollection<ReadModelDocument>[];
  readonly logger: Logger;
  /** Checkpoint name; default `read-models`. */
  readonly name?: string;
  /** Log a catch-up progress line this often; default 2000 ms. */
  readonly progressEveryMs?: number;
  /**
   * Told when the subscription stopped for good after the start: the log no longer
   * holds where the read models stand (EventStoreDB put back to an older copy while
   * this process ran). The process must stop; its next start refuses, saying why.
   */
  readonly onFailed?: (error: ReadModelsAheadOfLogError | ReadModelsOfAnotherLogError) => void;
}

/** The read models' own error for a resume point the log does not hold. */
export const readModelsNotOnLog = (checkpoint: string, error: ResumePointNotInLogError): ReadModelsAheadOfLogError | ReadModelsOfAnotherLogError =>
  'head' in error.found
    ? new ReadModelsAheadOfLogError(checkpoint, error.position, error.found.head)
    : new ReadModelsOfAnotherLogError(checkpoint, error.position, error.expectedEventId, error.found.eventId);

export interface ProjectionLag {
  readonly position: Position | null;
  readonly head: Position | null;
  readonly caughtUp: boolean;
  /** Age of the oldest event not yet applied, in ms (0 when caught up). */
  readonly lagMs: number;
}

/**
 * How far `position` is behind the head of the log. The oldest event not applied
 * may be one that cannot be read (a subscription stopped at it): its time is
 * taken from the error, which names it.
 */
export const measureLag = async (eventStore: EventStore, position: Position | null): Promise<ProjectionLag> => {
  const head = await eventStore.headPosition();
  const caughtUp = compareNullablePositions(head, position) <= 0;
  if (caughtUp) return { position, head, caughtUp, lagMs: 0 };
  let recordedAt: string | undefined;
  try {
    const [oldest] = await eventStore.readAll({ after: position, maxCount: 1 });
    recordedAt = oldest?.recordedAt;
  } catch (error) {
    if (!(error instanceof UndecodableEventError)) throw error;
    recordedAt = error.recordedAt;
  }
  const lagMs = recordedAt === undefined ? 0 : Math.max(0, Date.now() - Date.parse(recordedAt));
  return { position, head, caughtUp, lagMs };
};

/**
 * Feeds every read model from one checkpointed subscription. Durable read models
 * (SQLite, MongoDB) resume from their checkpoint; in-memory ones are rebuilt from
 * the start of the log. Each batch is applied to every collection together with
 * its checkpoint (`ReadModelStore.applyBatch`), then waiters on those positions
 * are released.
 *
 * A batch that fails is offered again with backoff (a store that is down comes
 * back), except for an event that cannot be read (`UndecodableEventError`: no
 * codec or upcaster of this release reads it), which no retry can change: the
 * runner stops right before it, logs it once and keeps it as `failure` (for
 * `/ready`), and `start()` returns, so the process still answers probes.
 */
export class ProjectionRunner implements ReadModelProgress {
  private current: Position | null = null;
  private readonly waiters = new PositionWaiters();
  private readonly appliedListeners = new Set<() => void>();
  private readonly name: string;
  private readonly follower: LogFollower;
  private endCatchUp: () => void = () => undefined;
  private applied = 0;

  constructor(private readonly deps: ProjectionRunnerDeps) {
    this.name = deps.name ?? READ_MODELS_CHECKPOINT;
    this.follower = new LogFollower(
      this.name,
      deps.logger,
      { retrying: 'read-model batch failed; retrying', stopped: 'read models' },
      'the event store to accept the subscription',
    );
  }

  get position(): Position | null {
    return this.current;
  }

  /** Where the read models' subscription stands, and what it waits for (for /health and /ready). */
  get status(): SubscriptionStatusSnapshot {
    return this.follower.status;
  }

  /** Before `start`: what the start waits for (the read models' lease), shown by /health and /ready. */
  waitingFor(what: string): void {
    this.follower.tracker.waiting(what);
  }

  /** The event that stopped the read models (they hold everything before it), or null while they follow the log. */
  get failure(): UndecodableEventError | null {
    return this.follower.failure;
  }

  /** Events this runner has applied since it started (0 after a restart that resumed at the head). */
  get eventsApplied(): number {
    return this.applied;
  }

  /** Starts the subscription and resolves once the log as it was at the start has been applied. */
  async start(): Promise<void> {
    const { eventStore, readModels, logger } = this.deps;
    // Documents an earlier release stored, brought to this release's layout by their one writer.
    await readModels.upgrade?.(logger);
    const from = readModels.durable ? await readModels.checkpoints.load(this.name) : null;
    const head = await eventStore.headPosition();
    // Resuming there would skip the next events appended (their positions count as applied), and
    // rebuilding from whatever log this is could replace read models of the right one: the operator decides.
    if (from !== null && compareNullablePositions(from, head) > 0) throw new ReadModelsAheadOfLogError(this.name, from, head);
    // Where both keep it, the event at the checkpoint must be the one the read models applied there.
    if (from !== null && eventStore.eventIdAt && readModels.checkpoints.loadEventId) {
      const expected = await readModels.checkpoints.loadEventId(this.name);
      const actual = expected === null ? null : await eventStore.eventIdAt(from);
      if (expected !== null && actual !== expected) throw new ReadModelsOfAnotherLogError(this.name, from, expected, actual);
    }
    this.current = from;
    const startedAt = Date.now();
    let applied = 0;
    let lastProgress = startedAt;
    const progressEveryMs = this.deps.progressEveryMs ?? 2000;
    let catchingUp = compareNullablePositions(from, head) < 0;
    if (catchingUp) logger.info({ from, head, readModels: readModels.kind }, 'applying the log to the read models');
    else if (from !== null) logger.info({ from, head, readModels: readModels.kind }, 'read models resumed at the head of the log');

    /** Until the log as it was at the start is applied: the start waits for this subscription. */
    let starting = true;
    let resolveCaughtUp!: () => void;
    let rejectCaughtUp!: (error: Error) => void;
    const caughtUp = new Promise<void>((resolve, reject) => {
      resolveCaughtUp = resolve;
      rejectCaughtUp = reject;
    });
    this.endCatchUp = resolveCaughtUp;
    if (!catchingUp) resolveCaughtUp();

    this.follower.follow(eventStore, {
      after: from,
      handle: async (batch) => {
        await this.applyBatch(batch);
        if (!catchingUp) return;
        applied += batch.length;
        const now = Date.now();
        const done = compareNullablePositions(this.current, head) >= 0;
        if (!done && now - lastProgress >= progressEveryMs) {
          lastProgress = now;
          logger.info(
            { applied, position: this.current, head, eventsPerSecond: Math.round(applied / ((now - startedAt) / 1000)) },
            'read-model catch-up in progress',
          );
        }
        if (done) {
          const ms = now - startedAt;
          logger.info(
            { applied, ms, eventsPerSecond: ms > 0 ? Math.round((applied * 1000) / ms) : applied },
            'read models caught up with the log',
          );
          // Said once: the batches after it are the log's new events.
          catchingUp = false;
          resolveCaughtUp();
        }
      },
      position: () => this.current,
      droppedWaitingFor: () =>
        starting ? 'the event store, to apply the log before the start completes' : 'the event store to accept the subscription again',
      // Stopped at an event it cannot read: the start waits no longer.
      onStopped: () => this.endCatchUp(),
      // The log no longer holds where the read models stand: the start fails, or (after it) the process stops.
      onFailed: (error) => {
        const failure = readModelsNotOnLog(this.name, error);
        logger.error({ err: failure, position: error.position }, `read models stopped: ${failure.message}`);
        if (starting) rejectCaughtUp(failure);
        else this.deps.onFailed?.(failure);
      },
    });
    await caughtUp;
    starting = false;
  }

  private async applyBatch(batch: readonly RecordedEvent[]): Promise<void> {
    const { collections, readModels } = this.deps;
    // Durable stores commit the documents with the checkpoint (SQLite: one transaction).
    await readModels.applyBatch(collections, batch, this.name);
    const last = batch[batch.length - 1]!.position;
    this.applied += batch.length;
    this.current = last;
    this.waiters.release(last);
    this.appliedListeners.forEach((listener) => listener());
  }

  /**
   * Calls `listener` after each batch committed with its checkpoint (API_WORKERS'
   * background process tells the API workers, whose waiting writes then read the
   * checkpoint at once); returns what stops it.
   */
  onApplied(listener: () => void): () => void {
    this.appliedListeners.add(listener);
    return () => this.appliedListeners.delete(listener);
  }

  waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    if (compareNullablePositions(position, this.current) <= 0) return Promise.resolve(true);
    return this.waiters.add(position, timeoutMs);
  }

  lag(): Promise<ProjectionLag> {
    return measureLag(this.deps.eventStore, this.current);
  }

  async stop(): Promise<void> {
    await this.follower.stop(async () => this.waiters.abandon());
  }
}
