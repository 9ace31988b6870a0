import type { ResumePointNotInLogError } from '../application/ports/EventStore.js';

/**
 * The webhook outbox holds the log up to a point this log does not hold: it was
 * fanned out from another log, or from this one before it was put back to an
 * older copy (EventStoreDB restored from a backup). Events appended from here on
 * would take positions the outbox counts as fanned out, and their webhooks would
 * never be sent; so the fan-out does not start, and says what to do.
 */
export class FanOutNotOnLogError extends Error {
  override readonly name = 'FanOutNotOnLogError';
  constructor(
    readonly checkpoint: string,
    readonly reason: ResumePointNotInLogError,
  ) {
    super(
      `webhook fan-out (checkpoint "${checkpoint}"): the webhook outbox holds the log up to position ${reason.position}, but ${reason.message}. ` +
        'The outbox was filled from another log, or from this one before it was put back to an older copy. ' +
        'If this is the wrong log, correct EVENTSTORE_URL and start again; if it is the right one, restore the webhook outbox ' +
        '(MongoDB) from a backup taken no later than the log’s, so that what lies after it is fanned out again ' +
        '(receivers de-duplicate by metadata.eventId): see docs/operators/eventstoredb-mongodb-restore.md.',
    );
  }
}
