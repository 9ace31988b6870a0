import type { Position } from '../../shared/Position.js';

/**
 * A subscription that follows a log on a server found that the log no longer
 * holds what it handled: the event at its position is another one, or there is
 * none (the database was put back to an older copy, or another database took its
 * place). It stops there instead of going on: the events appended from now on take
 * positions it counts as handled, and would be skipped. Restarting the process
 * checks the read models against the log and says what to do.
 */
export class LogReplacedError extends Error {
  override readonly name = 'LogReplacedError';
  constructor(
    readonly position: Position,
    /** The event it handled at `position`, when it knows it. */
    readonly handledEventId: string | null,
    /** The event the log holds at `position` now, or null. */
    readonly foundEventId: string | null,
    readonly head: Position | null,
  ) {
    super(
      `the log no longer holds what this subscription handled: at position ${position} it ` +
        (foundEventId === null
          ? `has no event (the log ${head === null ? 'is empty' : `ends at position ${head}`})`
          : `has event ${foundEventId}${handledEventId === null ? '' : `, not ${handledEventId}`}`) +
        '. The database was put back to an older copy, or replaced. This subscription stops here rather than skip the events ' +
        'appended from now on; restart the process, which checks its read models against the log and says what to do.',
    );
  }
}
