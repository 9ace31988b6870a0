import type { RecordedEvent } from '../ports/EventStore.js';

/** What names an unreadable event: enough for an operator to find it in the log. */
export interface UnreadableEvent {
  readonly eventId: string;
  readonly stream: string;
  readonly type: string;
  readonly position: string;
  /** The schema version it was stored in (recorded or inferred); null when it names none that makes sense. */
  readonly version: number | null;
}

/**
 * The stored version of an event as far as it can be told: the one the
 * versioning decorator found, else the one its metadata records, else null.
 */
const versionOf = (event: RecordedEvent): number | null => {
  if (event.version) return event.version.stored;
  const recorded: unknown = (event.metadata as { schemaVersion?: unknown } | undefined)?.schemaVersion;
  return typeof recorded === 'number' ? recorded : null;
};

/**
 * A stored event that the code cannot read: its version's codec refuses it, no
 * upcaster made it readable, or it names a version this release does not know
 * (written by a newer one). The log and the code disagree; the event is named
 * (position, stream, type, version) so that an operator can find it. Never
 * skipped, never retried as if it could pass.
 */
export class UndecodableEventError extends Error {
  override readonly name = 'UndecodableEventError';
  readonly eventId: string;
  readonly stream: string;
  readonly type: string;
  readonly position: string;
  readonly version: number | null;
  /** When the store recorded it (ISO 8601 UTC). */
  readonly recordedAt: string;

  constructor(
    event: RecordedEvent,
    /** Why it cannot be read (for a codec's refusal: the validation reporter's field messages, as JSON). */
    readonly reason: string,
    version: number | null = versionOf(event),
  ) {
    const stored = version === null ? '' : `, version ${version}`;
    super(`Event ${event.id} (${event.type}${stored}) at position ${event.position} in ${event.stream} does not decode: ${reason}`);
    this.eventId = event.id;
    this.stream = event.stream;
    this.type = event.type;
    this.position = event.position;
    this.version = version;
    this.recordedAt = event.recordedAt;
  }

  /** The event, named as `/ready` and the logs show it. */
  get event(): UnreadableEvent {
    return { eventId: this.eventId, stream: this.stream, type: this.type, position: this.position, version: this.version };
  }
}
