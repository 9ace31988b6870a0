import type { Position } from '../../shared/Position.js';

/** Why the read models and the log disagree, and what the operator does about it (both errors below). */
const WHAT_TO_DO =
  ': they were built from another log, or from this one before it was put back to an older copy. ' +
  'If this is the wrong log, correct DATA_DIR (or EVENTSTORE_URL, or POSTGRES_URL) and start again; ' +
  'if it is the right one, rebuild the read models from it with "chronicle replay", then start again.';

/**
 * Durable read models whose checkpoint is past the end of the log they are given:
 * they were built from another log, or from this one before it was put back to an
 * older copy (a restored backup). Events appended from here on would take
 * positions the read models count as applied, and be skipped; rebuilding them
 * from this log could replace read models of the right one. So the projections
 * do not start, and say what to do.
 */
export class ReadModelsAheadOfLogError extends Error {
  override readonly name = 'ReadModelsAheadOfLogError';
  constructor(
    readonly checkpoint: string,
    readonly position: Position,
    readonly head: Position | null,
  ) {
    super(
      `the read models (checkpoint "${checkpoint}") hold the log up to position ${position}, but the log ` +
        (head === null ? 'is empty' : `ends at position ${head}`) +
        WHAT_TO_DO,
    );
  }
}

/**
 * Durable read models whose checkpoint's event is not the log's event at that
 * position: the log has an event there, but another one (another log at least as
 * long, or this one put back to an older copy that took new events since). Checked
 * where both stores can tell (the embedded log and SQLite read models, which keep
 * the id of their checkpoint's event). What to do is the same as when the read
 * models are ahead of the log.
 */
export class ReadModelsOfAnotherLogError extends Error {
  override readonly name = 'ReadModelsOfAnotherLogError';
  constructor(
    readonly checkpoint: string,
    readonly position: Position,
    /** Null when not known (a checkpoint kept without it: the server said no event begins at its position). */
    readonly expectedEventId: string | null,
    readonly actualEventId: string | null,
  ) {
    super(
      `the read models (checkpoint "${checkpoint}") hold the log up to ${expectedEventId === null ? 'the event' : `event ${expectedEventId}`} at position ${position}, but the log ` +
        (actualEventId === null ? 'has no event there' : `has event ${actualEventId} there`) +
        WHAT_TO_DO,
    );
  }
}
