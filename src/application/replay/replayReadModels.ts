import type { EventStore, RecordedEvent } from '../ports/EventStore.js';
import { CheckpointMovedError, type Projection, type ReadModelDocument, type ReadModelStore } from '../ports/ReadModelStore.js';
import { READ_MODELS_CHECKPOINT } from '../subscriptions/ProjectionRunner.js';
import { comparePositions, type Position } from '../../shared/Position.js';

/** Where a replay stands, after each batch. */
export interface ReplayProgress {
  /** Events applied so far. */
  readonly events: number;
  /** Position of the last event applied. */
  readonly position: Position;
  /** The head of the log when the replay started: where it stops. */
  readonly head: Position;
  readonly elapsedMs: number;
}

/** What a finished replay reports (`chronicle replay --json`). */
export interface ReplaySummary {
  readonly events: number;
  readonly ms: number;
  readonly eventsPerSecond: number;
  /** Read models (collections) rebuilt. */
  readonly collections: number;
  /** Last position replayed, where the read models' checkpoint now stands (null: empty log). */
  readonly position: Position | null;
}

export interface ReplayDeps {
  readonly eventStore: EventStore;
  readonly readModels: ReadModelStore;
  readonly projections: readonly Projection<ReadModelDocument>[];
  /** Called after every batch. */
  readonly onProgress?: (progress: ReplayProgress) => void;
  /** Events read per batch; default 1000 (the subscriptions' batch size). */
  readonly batchSize?: number;
  /** The checkpoint saved at the replayed position; default the read models'. */
  readonly checkpoint?: string;
}

/** The read models' checkpoint moved while a replay was building: a projector is running. */
export class ReplayConflictError extends Error {
  override readonly name = 'ReplayConflictError';
  constructor(
    readonly checkpoint: string,
    readonly before: Position | null,
    readonly after: Position | null,
  ) {
    super(
      `the read models' checkpoint "${checkpoint}" moved from ${before ?? 'the start'} to ${after ?? 'the start'} during the replay, ` +
        'so a projector (RUN_PROJECTIONS=true) is running; stop it and replay again. The live read models were left as they were.',
    );
  }
}

/** How far `position` is towards `head`, 0..1 (positions compared as integers, any size). */
export const progressFraction = (position: Position, head: Position): number => {
  const total = BigInt(head);
  if (total === 0n) return 1;
  const done = BigInt(position) >= total ? total : BigInt(position);
  return Number((done * 1_000_000n) / total) / 1_000_000;
};

/** Time left at the rate so far, in ms (null until something is done). */
export const etaMs = (fraction: number, elapsedMs: number): number | null =>
  fraction <= 0 ? null : Math.max(0, Math.round((elapsedMs * (1 - fraction)) / fraction));

export const eventsPerSecond = (events: number, ms: number): number => (ms > 0 ? Math.round((events * 1000) / ms) : events);

/**
 * Rebuilds every read model from the log: reads it in batches up to the head it
 * had when the replay started (events appended meanwhile are left to the
 * projector, which resumes after the saved checkpoint) and applies each batch to
 * fresh staging collections, which then replace the live ones. Until the swap
 * the live read models keep serving as they were; a replay that fails drops its
 * staging and changes nothing.
 *
 * On durable read models (SQLite, MongoDB) the swap is refused when the read
 * models' checkpoint moved during the replay: a projector applied events to the
 * old collections that the new ones might not have.
 */
export const replayReadModels = async (deps: ReplayDeps): Promise<ReplaySummary> => {
  const { eventStore, readModels, projections, onProgress } = deps;
  const batchSize = deps.batchSize ?? 1000;
  const checkpoint = deps.checkpoint ?? READ_MODELS_CHECKPOINT;
  const startedAt = performance.now();
  const before = readModels.durable ? await readModels.checkpoints.load(checkpoint) : null;
  const staging = await readModels.staging();
  try {
    const collections = projections.map((projection) => staging.collection(projection));
    await staging.init();
    const head = await eventStore.headPosition();
    let position: Position | null = null;
    let eventId: string | null = null;
    let events = 0;
    // Bounded: every batch moves `position` forward, and the loop ends at `head`.
    while (head !== null && (position === null || comparePositions(position, head) < 0)) {
      const read: RecordedEvent[] = await eventStore.readAll({ after: position, maxCount: batchSize });
      const batch = read.filter((event) => comparePositions(event.position, head) <= 0);
      if (batch.length === 0) break;
      await staging.applyBatch(collections, batch);
      events += batch.length;
      position = batch[batch.length - 1]!.position;
      eventId = batch[batch.length - 1]!.id;
      onProgress?.({ events, position, head, elapsedMs: performance.now() - startedAt });
    }
    if (readModels.durable) {
      const now = await readModels.checkpoints.load(checkpoint);
      if (now !== before) throw new ReplayConflictError(checkpoint, before, now);
    }
    try {
      await staging.swap({ name: checkpoint, position, eventId, ...(readModels.durable ? { expected: before } : {}) });
    } catch (error) {
      // SQLite checks the checkpoint again inside the swap's transaction, which closes the gap left by the check above.
      if (error instanceof CheckpointMovedError) throw new ReplayConflictError(checkpoint, error.expected, error.actual);
      throw error;
    }
    const ms = Math.round(performance.now() - startedAt);
    return { events, ms, eventsPerSecond: eventsPerSecond(events, ms), collections: collections.length, position };
  } catch (error) {
    try {
      await staging.discard();
    } catch {
      // The replay's own failure is what the caller needs to see.
    }
    throw error;
  }
};
