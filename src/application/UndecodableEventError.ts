import type { RecordedEvent } from './ports/EventStore.js';

/**
 * A stored event that the code cannot read: its codec refuses it (and no upcaster
 * made it readable). The log and the code disagree; the event is named so that an
 * operator can find it. Never skipped, never retried as if it could pass.
 */
export class UndecodableEventError extends Error {
  override readonly name = 'UndecodableEventError';
  readonly eventId: string;
  readonly stream: string;
  readonly type: string;
  readonly position: string;

  constructor(
    event: RecordedEvent,
    /** Why it does not decode (the validation reporter's field messages, as JSON). */
    readonly reason: string,
  ) {
    super(`Event ${event.id} (${event.type}) at position ${event.position} in ${event.stream} does not decode: ${reason}`);
    this.eventId = event.id;
    this.stream = event.stream;
    this.type = event.type;
    this.position = event.position;
  }
}
