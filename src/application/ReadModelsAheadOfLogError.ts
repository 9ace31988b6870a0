import type { Position } from '../shared/Position.js';

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
        ': they were built from another log, or from this one before it was put back to an older copy. ' +
        'If this is the wrong log, correct DATA_DIR (or EVENTSTORE_URL) and start again; ' +
        'if it is the right one, rebuild the read models from it with "chronicle replay", then start again.',
    );
  }
}
