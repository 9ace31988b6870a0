import type { EventMetadata } from '../../shared/EventMetadata.js';
import type { Position } from '../../shared/Position.js';

export type { Position } from '../../shared/Position.js';

/**
 * What the appender expects the stream to be:
 * - `no_stream`: the stream has no events yet;
 * - `stream_exists`: the stream has at least one event;
 * - `any`: no check;
 * - a number: the revision of the stream's last event (revisions start at 0).
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | number;

export interface EventToAppend {
  /** Unique in the whole log (a UUID). */
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
  /**
   * When the event was first recorded (ISO 8601 UTC), for an import alone
   * (`chronicle companies import`): the store keeps this time instead of its own,
   * so that an imported history shows the times it had. Absent: the store's now.
   * EventStoreDB sets its own times and ignores it.
   */
  readonly recordedAt?: string;
}

/** Which schema version a recorded event was stored in, and which one its `data` is in now. */
export interface RecordedEventVersion {
  /** The version of `data` as handed up: the event type's current version. */
  readonly current: number;
  /** The version the event was stored in. */
  readonly stored: number;
  /**
   * True when the stored event names its version (`metadata.schemaVersion`);
   * false for events written before versions were recorded, whose stored
   * version is inferred from their shape.
   */
  readonly recorded: boolean;
}

export interface RecordedEvent {
  readonly id: string;
  readonly stream: string;
  /** 0-based revision of the event within its stream. */
  readonly revision: number;
  /** Global position in the log; strictly increasing in `readAll` order. */
  readonly position: Position;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
  /** When the store recorded the event (ISO 8601 UTC). */
  readonly recordedAt: string;
  /**
   * Set by the versioning decorator (`UpcastingEventStore`) on every event of a
   * type this code declares: `data` is then in the current version's shape,
   * whatever version it was stored in. Absent on an adapter's own reads (data
   * exactly as stored) and on types the code does not declare.
   */
  readonly version?: RecordedEventVersion;
  /**
   * Set by the personal-data decorator (`PersonalDataEventStore`) on an event whose
   * personal fields were sealed for a subject that has been erased since: those
   * fields (dotted paths of `data`) read as null. Absent when nothing was erased.
   */
  readonly erasedFields?: readonly string[];
}

/** One stream's part of a multi-stream append (`EventStore.appendToStreams`). */
export interface StreamAppend {
  readonly stream: string;
  readonly events: readonly EventToAppend[];
  readonly expected: ExpectedRevision;
}

/** Why a multi-stream append breaks the rules of `appendToStreams` (no stream, a stream twice or without events), or null. */
export const invalidStreamAppends = (appends: readonly StreamAppend[]): string | null => {
  if (appends.length === 0) return 'appendToStreams needs at least one stream';
  const streams = new Set<string>();
  for (const { stream, events } of appends) {
    if (events.length === 0) return `appendToStreams needs at least one event for ${stream}`;
    if (streams.has(stream)) return `appendToStreams was given ${stream} twice`;
    streams.add(stream);
  }
  return null;
};

export interface AppendResult {
  /** Revision of the last event appended. */
  readonly nextRevision: number;
  /** Global position of the last event appended. */
  readonly position: Position;
}

/** The stream was not at the expected revision. */
export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual last revision, or `no_stream`. */
    readonly actual: number | 'no_stream',
    /** The name the stream is stored under, when it is not `stream` (a person's value hashed out of it): what messages show. */
    readonly storedAs: string = stream,
  ) {
    super(`Stream ${storedAs}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/** An event id that is already stored was appended again. */
export class DuplicateEventIdError extends Error {
  override readonly name = 'DuplicateEventIdError';
  constructor(readonly eventId: string) {
    super(`Event ${eventId} is already stored`);
  }
}

export interface ReadStreamOptions {
  /** First revision to read (inclusive); default 0. */
  readonly fromRevision?: number;
  readonly maxCount?: number;
}

export interface ReadAllOptions {
  /** Read events after this position (exclusive); null or absent reads from the start. */
  readonly after?: Position | null;
  readonly maxCount?: number;
}

export type BatchHandler = (batch: readonly RecordedEvent[]) => Promise<void>;

export interface SubscribeOptions {
  /** Deliver events after this position (exclusive); null from the start. */
  readonly after: Position | null;
  /**
   * Called with batches of one or more events in log order. A batch whose handler
   * throws is offered again (with backoff) until it succeeds: never skipped.
   */
  readonly handle: BatchHandler;
  /** Told of each handler failure before the retry. */
  readonly onError?: (error: unknown, attempt: number) => void;
  readonly maxBatchSize?: number;
  /**
   * Told each time the store has accepted the subscription (at first, and after
   * every reconnect). A local store (SQLite) tells it once, at once.
   */
  readonly onConnected?: () => void;
  /**
   * Told when the connection behind the subscription fails or cannot be made
   * (`attempt` counts since it was last connected); the subscription resubscribes
   * by itself, with backoff, from its last handled position.
   */
  readonly onDropped?: (error: unknown, attempt: number) => void;
  /**
   * Told when the subscription is healthy but waits for something other than a
   * failure to pass (`what`, in words): another instance consumes a persistent
   * subscription group, and this one stands by.
   */
  readonly onWaiting?: (what: string) => void;
  /**
   * Told once when the subscription stopped by itself for good: where it would
   * resume is not a point of this log (`ResumePointNotInLogError`: checked when it
   * resubscribes after a drop, and said by a server asked to start there). No retry
   * can change that; the subscription has stopped.
   */
  readonly onFailed?: (error: ResumePointNotInLogError) => void;
}

/**
 * Where a subscription would resume is not a point of this log: the log ends
 * before it, no event begins there, or another event than the one handled there
 * is there. The position was reached on another log, or on this one before it was
 * put back to an older copy (a restored backup); resuming would skip events
 * appended since under positions counted as handled, so no retry can help.
 */
export class ResumePointNotInLogError extends Error {
  override readonly name = 'ResumePointNotInLogError';
  constructor(
    readonly position: Position,
    /** The id of the event handled at `position`, when known. */
    readonly expectedEventId: string | null,
    /** What the log has: its head (it ends before `position`), or the id of the event at `position` (null: none begins there). */
    readonly found: { readonly head: Position | null } | { readonly eventId: string | null },
  ) {
    super(
      `the log has no ${expectedEventId === null ? 'event' : `event ${expectedEventId}`} at position ${position} to resume after: ` +
        ('head' in found
          ? found.head === null
            ? 'it is empty'
            : `it ends at position ${found.head}`
          : found.eventId === null
            ? 'no event begins there'
            : `event ${found.eventId} is there`),
    );
  }

  /** True when the log ends before the position (else it holds another event there, or none begins there). */
  get logEndsBefore(): boolean {
    return 'head' in this.found;
  }
}

/** Calls an observer hook of `SubscribeOptions`; a throwing observer must not break a subscription's loop. */
export const notify = <A extends unknown[]>(hook: ((...args: A) => void) | undefined, ...args: A): void => {
  try {
    hook?.(...args);
  } catch {
    // an observer's failure is its own
  }
};

export interface Subscription {
  /** Position of the last event whose batch was handled. */
  readonly position: Position | null;
  /** Resolves once the current batch (if any) has finished and no more are delivered. */
  stop(): Promise<void>;
}

/** What an in-place rewrite stores for one event (see `EventStore.rewriteEventData`). */
export interface RewrittenEvent {
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

export interface EventStore {
  readonly kind: 'sqlite' | 'eventstoredb' | 'postgres';
  /**
   * `appendToStreams`, keeping new subjects' key texts (`keys`, subject → text) in
   * the same commit: where the subject keys live beside the log (SQLite, PostgreSQL),
   * a new person costs no commit or round trip of its own. A subject that has a key
   * already, or was erased, rejects the whole append with `SubjectKeyTakenError`, and
   * none of its keys is kept. Optional.
   */
  appendToStreamsWithKeys?(appends: readonly StreamAppend[], keys: ReadonlyMap<string, string>): Promise<AppendResult[]>;
  append(stream: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * Appends to several streams at once, all or nothing: each stream's events are
   * checked against its own expected revision, and either every stream's events
   * are stored, in the order given and at consecutive log positions, or none is.
   * Same durability as `append`: resolved only once everything is durable. A wrong
   * expected revision on any stream rejects with that stream's
   * `WrongExpectedRevisionError` (a repeated event id with `DuplicateEventIdError`)
   * and appends nothing. Resolves with one result per stream, in the order given.
   * Each stream appears once, with at least one event.
   *
   * Optional: only a store that can commit several streams in one transaction
   * offers it (SQLite, PostgreSQL). EventStoreDB has no multi-stream transaction, so its
   * adapter leaves it out rather than fake it with appends one after the other;
   * callers keep a protocol that survives a failure between two appends there
   * (see `createContact`).
   */
  appendToStreams?(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  /**
   * Calls `listener` after each commit of appends made through this instance;
   * returns what stops it. Offered by a store whose subscriptions in other
   * processes find new events by polling (SQLite; PostgreSQL, where they also hear
   * of commits by NOTIFY), so that a process can tell them at once (API_WORKERS'
   * supervisor relays it to the projector).
   */
  onAppended?(listener: () => void): () => void;
  /** Another process says it appended: this store's subscriptions look at the log now instead of at their next poll. */
  lookNow?(): void;
  /** A missing stream reads as empty. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events of every stream in global order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the newest event in the log, or null when the log is empty. */
  headPosition(): Promise<Position | null>;
  /**
   * The id of the event at `position`, or null when the log has none there. The
   * embedded store and PostgreSQL offer it (one indexed read), EventStoreDB too (one
   * read of $all from the position); with it, read models that keep the id of their
   * checkpoint's event are checked against the log exactly.
   */
  eventIdAt?(position: Position): Promise<string | null>;
  /** Catch up from `after`, then follow live appends (including other processes'). */
  subscribeToAll(options: SubscribeOptions): Subscription;
  /**
   * One of the log's only in-place rewrites (the other is the sealing of events
   * stored before personal fields were sealed): every stream whose name starts with
   * `prefix` and to which `rename` gives another name takes that name, each of its
   * events keeping its id, position, revision, type, data, metadata and time. One
   * transaction; what a rename replaces is overwritten in the store's files where the
   * engine does so (SQLite's `secure_delete`). Done once per prefix: the store records
   * it, and a later call answers 0 at once. Answers how many streams were renamed.
   * Offered where the log is a table (SQLite, PostgreSQL); EventStoreDB's streams
   * cannot be renamed.
   */
  renameStreams?(prefix: string, rename: (stream: string) => string): Promise<number>;
  /**
   * The other in-place rewrite: the stored data and metadata of events, one batch of
   * at most `maxCount` in log order from where the rewrite named `name` stopped.
   * `rewrite` answers, by event id, the new data and metadata of the events it
   * changes (the others stay as they are); each event keeps its id, stream,
   * revision, position, type and time. The batch and the rewrite's progress are
   * stored in one transaction, so a rewrite cut short resumes where it stopped.
   * Answers how many events the batch looked at and how many it changed; a batch
   * that finds no event left records the rewrite as done, and a done rewrite
   * answers 0 at once. Offered where the log is a table (SQLite, PostgreSQL).
   */
  rewriteEventData?(
    name: string,
    maxCount: number,
    rewrite: (events: readonly RecordedEvent[]) => Promise<ReadonlyMap<string, RewrittenEvent>>,
  ): Promise<{ readonly looked: number; readonly changed: number }>;
  close(): Promise<void>;
}

/**
 * A subject key handed to `appendToStreamsWithKeys` could not be kept: the subject
 * has a key already (made by a write in between), or was erased. Nothing was appended.
 */
export class SubjectKeyTakenError extends Error {
  override readonly name = 'SubjectKeyTakenError';
  constructor(
    readonly subject: string,
    readonly erased: boolean,
  ) {
    super(erased ? `${subject} was erased` : `${subject} has a key already`);
  }
}
