import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type CurrentRevision,
  type JSONType,
  type Position as DriverPosition,
  type ReadPosition,
  type RecordedEvent as DriverRecordedEvent,
} from '@eventstore/db-client';
import {
  ResumePointNotInLogError,
  WrongExpectedRevisionError,
  notify,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../../application/ports/EventStore.js';
import { Alarm, backoffMs } from '../../application/subscriptions/Alarm.js';
import type { EventMetadata } from '../../shared/EventMetadata.js';
import { comparePositions, isPosition, type Position } from '../../shared/Position.js';

/*
 * Positions.
 *
 * An EventStoreDB log position is a pair {commit, prepare} of 64-bit log offsets;
 * $all is ordered by commit, then prepare. Since 20.x every gRPC append is an
 * implicit transaction whose events are "self-committed" prepares, so each event
 * reads back from $all as (p, p) with its own log offset p, and the append result
 * carries the last event's (p, p). Events written in an explicit transaction
 * (the legacy TCP API, or data carried over from a v5 database) share the
 * transaction's commit position and differ only in prepare. So both halves are
 * kept, as one decimal integer: commit * 2^64 + prepare. It is a non-negative
 * integer, orders exactly as $all does, and decodes back to the pair that
 * `fromPosition` needs.
 *
 * The server sends ulong.MaxValue for both halves when it does not know an
 * event's $all position (stream reads of events from explicit transactions);
 * servers before 22.6 send nothing on stream reads, which the driver turns into
 * 0/0. Neither is a real event position (the log starts with an epoch record).
 */
const PREPARE_BITS = 64n;
const PREPARE_MASK = (1n << PREPARE_BITS) - 1n;
const UNKNOWN_HALF = PREPARE_MASK;

export const encodeEsdbPosition = ({ commit, prepare }: DriverPosition): Position => {
  if (commit < 0n || prepare < 0n || commit >= UNKNOWN_HALF || prepare >= UNKNOWN_HALF) {
    throw new RangeError(`Not an EventStoreDB log position: ${commit}/${prepare}`);
  }
  return ((commit << PREPARE_BITS) | prepare).toString(10);
};

export const decodeEsdbPosition = (position: Position): DriverPosition => {
  if (!isPosition(position)) throw new RangeError(`Not a position: ${JSON.stringify(position)}`);
  const value = BigInt(position);
  return { commit: value >> PREPARE_BITS, prepare: value & PREPARE_MASK };
};

const isKnown = (position: DriverPosition | undefined): position is DriverPosition =>
  position !== undefined &&
  position.commit < UNKNOWN_HALF &&
  position.prepare < UNKNOWN_HALF &&
  (position.commit > 0n || position.prepare > 0n);

const toNumber = (value: bigint, what: string): number => {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${what} out of range: ${value}`);
  return Number(value);
};

const toDriverExpected = (expected: ExpectedRevision): AppendExpectedRevision => {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) throw new RangeError(`Invalid expected revision ${expected}`);
      return BigInt(expected);
  }
};

/** The driver reports a missing stream as 'no_stream' (or, on some paths, -1). */
const toActual = (actual: CurrentRevision): number | 'no_stream' =>
  actual === NO_STREAM || actual < 0n ? 'no_stream' : toNumber(actual, 'revision');

/** System events ($-prefixed streams or types: metadata, links, stats) are not ours. Shared with the persistent fan-out source. */
export const isSystemEvent = (event: DriverRecordedEvent): boolean =>
  event.streamId.startsWith('$') || event.type.startsWith('$');

/** Events are stored as JSON; a binary event from another writer is decoded as UTF-8 JSON when possible. */
const fromBytes = (bytes: Uint8Array): unknown => {
  const text = Buffer.from(bytes).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** A driver event as the port's RecordedEvent. Shared with the persistent fan-out source. */
export const toRecordedEvent = (event: DriverRecordedEvent): RecordedEvent => {
  if (!isKnown(event.position)) {
    // Only events of explicit (legacy TCP) transactions lack a position, and
    // Chronicle never writes those: refuse rather than invent an order.
    throw new Error(`EventStoreDB did not report the log position of event ${event.id} in ${event.streamId}`);
  }
  return {
    id: event.id,
    stream: event.streamId,
    revision: toNumber(event.revision, 'revision'),
    position: encodeEsdbPosition(event.position),
    type: event.type,
    data: event.data instanceof Uint8Array ? fromBytes(event.data) : event.data,
    // Our own metadata object, written by append(); other writers' events are not expected here.
    metadata: (event.metadata instanceof Uint8Array ? fromBytes(event.metadata) : event.metadata ?? {}) as EventMetadata,
    recordedAt: event.created.toISOString(),
  };
};

/**
 * The server's answer to a read or subscription of $all from a position where no
 * record begins (gRPC INVALID_ARGUMENT, "Trying to read from an invalid position"),
 * which the client passes on as an unknown error with the status code.
 */
export const isInvalidPosition = (error: unknown): boolean =>
  error instanceof Error && (error as Error & { code?: unknown }).code === 3 && /invalid position/i.test(error.message);

/** Calls an observer hook; a throwing hook must not break the subscription loop. */
const tell = (hook: ((error: unknown, attempt: number) => void) | undefined, error: unknown, attempt: number): void => {
  try {
    hook?.(error, attempt);
  } catch {
    // ignored on purpose
  }
};

const collect = async <T>(read: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of read) out.push(item);
  return out;
};

/** Largest page of the $all reads behind readAll and headPosition. */
const READ_PAGE = 1000;
/**
 * Smallest page of a forward $all read. The 6.x client's readAll takes no server-side
 * filter, and $all holds system events between ours (the server's `$stats-…` every
 * 30 s by default, metadata, links): a page sized to exactly what is asked for (2
 * for `maxCount: 1`) made one round trip per system event after a quiet spell.
 */
const MIN_READ_PAGE = 64;
/** How long an idle subscription sleeps before it looks at its driver stream again (it is woken on data). */
const IDLE_RECHECK_MS = 30_000;

export interface EventStoreDbEventStoreOptions {
  /**
   * Told when a subscription's server stream fails (connection lost, server
   * restart) before it resubscribes, with backoff, from its last handled position.
   */
  readonly onSubscriptionDropped?: (error: unknown, attempt: number) => void;
}

/**
 * The production event store on EventStoreDB (gRPC, @eventstore/db-client v6).
 *
 * Revisions become numbers and positions decimal strings at this boundary (see
 * "Positions" above); driver errors become the port's errors. Appends rely on
 * the server's optimistic concurrency. A retried append of the same event ids
 * is idempotent on the server (it answers with the original result; guaranteed
 * with an exact expected revision, best effort with `any`), so an id is stored
 * once; the server does not reject an id reused in another stream, so
 * DuplicateEventIdError is never raised here.
 *
 * It offers no `appendToStreams`: a gRPC append is atomic for one stream only,
 * and the client has no multi-stream transaction. Appends one after the other
 * would not be all or nothing (a failure between two leaves the first), so the
 * port's optional method is left out and callers keep their sequential protocol
 * with its compensation (a contact's phone reservation, then the contact).
 */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  private readonly subscriptions = new Set<Subscription>();
  private closed = false;

  static connect(connectionString: string, options: EventStoreDbEventStoreOptions = {}): EventStoreDbEventStore {
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(connectionString), options);
  }

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly options: EventStoreDbEventStoreOptions = {},
  ) {}

  async append(stream: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    if (events.length === 0) throw new Error('append needs at least one event');
    const eventData = events.map((event) =>
      jsonEvent({
        id: event.id,
        type: event.type,
        // Any JSON value is accepted on the wire (the driver JSON.stringifies it).
        data: event.data as JSONType,
        metadata: event.metadata,
      }),
    );
    let result;
    try {
      // One append is atomic on the server: all events or none, checked against expectedRevision.
      result = await this.client.appendToStream(stream, eventData, { expectedRevision: toDriverExpected(expected) });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        throw new WrongExpectedRevisionError(stream, expected, toActual(error.actualVersion));
      }
      throw error;
    }
    const nextRevision = toNumber(result.nextExpectedRevision, 'revision');
    // The success position is the last event's (p, p); the driver types it optional, so fall back to a read.
    const position = isKnown(result.position)
      ? encodeEsdbPosition(result.position)
      : await this.positionOf(stream, nextRevision);
    return { nextRevision, position };
  }

  private async positionOf(stream: string, revision: number): Promise<Position> {
    const [event] = await this.readStream(stream, { fromRevision: revision, maxCount: 1 });
    if (!event) throw new Error(`Event ${stream}@${revision} is not readable after its append`);
    return event.position;
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const fromRevision = options.fromRevision ?? 0;
    if (!Number.isSafeInteger(fromRevision) || fromRevision < 0) throw new RangeError(`Invalid revision ${fromRevision}`);
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    try {
      const read = await collect(
        this.client.readStream(stream, {
          direction: FORWARDS,
          fromRevision: BigInt(fromRevision),
          ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
        }),
      );
      return read.flatMap((resolved) => (resolved.event ? [toRecordedEvent(resolved.event)] : []));
    } catch (error) {
      // The driver raises StreamNotFoundError (from the read's stream) for a stream with no events.
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const limit = options.maxCount ?? Number.POSITIVE_INFINITY;
    const out: RecordedEvent[] = [];
    if (limit <= 0) return out;
    // A $all read's fromPosition is inclusive, so the event at `after` comes back first and is dropped.
    let from: ReadPosition = options.after == null ? START : decodeEsdbPosition(options.after);
    let exclude: Position | null = options.after ?? null;
    // Each page that was full but short of what is asked for (system events) grows the next one.
    let floor = MIN_READ_PAGE;
    for (;;) {
      const want = Math.min(READ_PAGE, Math.max(floor, limit - out.length + (exclude === null ? 0 : 1)));
      const page: AllStreamResolvedEvent[] = await collect(
        this.client.readAll({ direction: FORWARDS, fromPosition: from, maxCount: want }),
      );
      let last: DriverPosition | null = null;
      for (const { event } of page) {
        if (!event) continue;
        last = event.position;
        if (isSystemEvent(event)) continue;
        const recorded = toRecordedEvent(event);
        if (recorded.position === exclude) continue;
        out.push(recorded);
        if (out.length >= limit) return out;
      }
      // A short page is the end of the log. System events are filtered here, not
      // on the server, so a full page may hold fewer of ours: read on from it.
      if (page.length < want || last === null) return out;
      from = last;
      exclude = encodeEsdbPosition(last);
      floor = Math.min(floor * 4, READ_PAGE);
    }
  }

  async headPosition(): Promise<Position | null> {
    this.assertOpen();
    let from: ReadPosition = END;
    let before: bigint | null = null;
    let pageSize = 16;
    for (;;) {
      const page: AllStreamResolvedEvent[] = await collect(
        this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: pageSize }),
      );
      let last: DriverPosition | null = null;
      for (const { event } of page) {
        if (!event) continue;
        last = event.position;
        const position = encodeEsdbPosition(event.position);
        // A backwards page starting at an event's position may repeat it (explicit transactions).
        if (before !== null && BigInt(position) >= before) continue;
        if (!isSystemEvent(event)) return position;
      }
      if (page.length < pageSize || last === null) return null;
      from = last;
      before = BigInt(encodeEsdbPosition(last));
      pageSize = Math.min(pageSize * 4, READ_PAGE);
    }
  }

  /**
   * The id of the event at `position`: a forward read of $all from it (inclusive)
   * returns that event when one begins there, else the next one (or the server
   * answers that no record begins there).
   */
  async eventIdAt(position: Position): Promise<string | null> {
    this.assertOpen();
    try {
      const [first] = await collect(this.client.readAll({ direction: FORWARDS, fromPosition: decodeEsdbPosition(position), maxCount: 1 }));
      const event = first?.event;
      return event && isKnown(event.position) && encodeEsdbPosition(event.position) === position ? event.id : null;
    } catch (error) {
      if (isInvalidPosition(error)) return null;
      throw error;
    }
  }

  /**
   * Checks that a subscription may resume after `position`, the event `eventId`
   * (null: not known): the log reaches it and holds that event there. Throws
   * `ResumePointNotInLogError` when not (EventStoreDB put back to an older copy).
   */
  async checkResumePoint(position: Position, eventId: string | null): Promise<void> {
    const head = await this.headPosition();
    if (head === null || comparePositions(position, head) > 0) throw new ResumePointNotInLogError(position, eventId, { head });
    const found = await this.eventIdAt(position);
    if (found === null || (eventId !== null && found !== eventId)) throw new ResumePointNotInLogError(position, eventId, { eventId: found });
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    this.assertOpen();
    const subscription = new AllSubscription(this.client, this, options, this.options.onSubscriptionDropped, () =>
      this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    await this.client.dispose();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The event store is closed');
  }
}

/**
 * A catch-up subscription to $all that hands batches to a handler, never
 * skipping one, and resubscribes from its last handled position when the
 * server stream fails.
 *
 * The driver's subscription is a Node object-mode Readable: it is read in
 * paused mode, taking whatever is already buffered (up to maxBatchSize) as one
 * batch, so a lone live event is handed over at once. While a batch is being
 * handled nothing is read, and backpressure reaches the server through gRPC
 * flow control. Its `fromPosition` is exclusive, as the port's `after` is.
 */
class AllSubscription implements Subscription {
  private handled: Position | null;
  /** The id of the event at `handled`, once a batch was handled here (null before: the subscriber checked its start). */
  private handledId: string | null = null;
  private stopped = false;
  /** Woken by the driver stream (data, error, end) and by stop(). */
  private readonly streamAlarm = new Alarm();
  /** Woken only by stop(): ends a backoff early. */
  private readonly backoffAlarm = new Alarm();
  private readonly maxBatchSize: number;
  private readonly done: Promise<void>;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly log: EventStoreDbEventStore,
    private readonly options: SubscribeOptions,
    private readonly onDropped: ((error: unknown, attempt: number) => void) | undefined,
    private readonly onStopped: () => void,
  ) {
    if (options.after !== null) decodeEsdbPosition(options.after); // fail fast on a malformed position
    this.handled = options.after;
    this.maxBatchSize = Math.max(1, Math.floor(options.maxBatchSize ?? 1000));
    this.done = this.run();
  }

  get position(): Position | null {
    return this.handled;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.streamAlarm.wake();
    this.backoffAlarm.wake();
    await this.done;
    this.onStopped();
  }

  private async run(): Promise<void> {
    let drops = 0;
    while (!this.stopped) {
      let driver: AllStreamSubscription | null = null;
      try {
        // After a drop (the server restarted, perhaps from an older copy of its data), resume only
        // where the log still holds what was handled: resuming past its end would skip what it appends next.
        if (drops > 0 && this.handled !== null) await this.log.checkResumePoint(this.handled, this.handledId);
        driver = this.client.subscribeToAll(
          {
            fromPosition: this.handled === null ? START : decodeEsdbPosition(this.handled),
            // Server-side filter on event type ^[^$]; stream names are checked again below.
            filter: excludeSystemEvents(),
          },
          { highWaterMark: this.maxBatchSize },
        );
        await this.follow(driver, () => {
          drops = 0;
        });
      } catch (error) {
        if (this.stopped) break;
        const notInLog = this.notInLog(error);
        if (notInLog) {
          // No retry can pass it: stop, and say so once.
          this.stopped = true;
          notify(this.options.onFailed, notInLog);
          break;
        }
        drops += 1;
        tell(this.onDropped, error, drops);
        notify(this.options.onDropped, error, drops);
        await this.backoffAlarm.sleep(backoffMs(drops));
      } finally {
        if (driver) await release(driver);
      }
    }
  }

  /** The error as a resume point that is not in the log, or null for a failure worth retrying. */
  private notInLog(error: unknown): ResumePointNotInLogError | null {
    if (error instanceof ResumePointNotInLogError) return error;
    if (isInvalidPosition(error) && this.handled !== null) return new ResumePointNotInLogError(this.handled, this.handledId, { eventId: null });
    return null;
  }

  /** Reads and delivers until stopped (returns) or the driver stream fails or ends (throws). */
  private async follow(driver: AllStreamSubscription, onDelivered: () => void): Promise<void> {
    // Set by the listeners below (an object, so that the checks after `await` are not narrowed away).
    const state: { failure: { error: unknown } | null; ended: boolean } = { failure: null, ended: false };
    // The error listener stays for the stream's life: an unheard 'error' would crash the process.
    driver.on('error', (error) => {
      state.failure ??= { error };
      this.streamAlarm.wake();
    });
    driver.on('readable', () => this.streamAlarm.wake());
    driver.on('end', () => {
      state.ended = true;
      this.streamAlarm.wake();
    });
    // The server accepted the subscription. (The backoff restarts only once a batch is delivered,
    // so a server that accepts and drops at once is not hammered.)
    driver.on('confirmation', () => notify(this.options.onConnected));

    while (!this.stopped) {
      const batch: RecordedEvent[] = [];
      let drained = false;
      while (batch.length < this.maxBatchSize) {
        const resolved = driver.read() as AllStreamResolvedEvent | null;
        if (resolved === null) {
          drained = true;
          break;
        }
        if (resolved.event && !isSystemEvent(resolved.event)) batch.push(toRecordedEvent(resolved.event));
      }
      if (batch.length > 0) {
        if (await this.deliver(batch)) {
          onDelivered();
          // Events flow: connected, even from a server that sent no confirmation.
          notify(this.options.onConnected);
        }
        continue;
      }
      if (!drained) continue;
      // Events buffered before a failure were still delivered above; now resubscribe.
      if (state.failure) throw state.failure.error;
      if (state.ended) throw new Error('The EventStoreDB subscription ended');
      await this.streamAlarm.sleep(IDLE_RECHECK_MS);
    }
  }

  /** Offers the batch until the handler accepts it (true) or the subscription stops (false). */
  private async deliver(batch: readonly RecordedEvent[]): Promise<boolean> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await this.options.handle(batch);
        const last = batch[batch.length - 1]!;
        this.handled = last.position;
        this.handledId = last.id;
        return true;
      } catch (error) {
        tell(this.options.onError, error, attempt);
        await this.backoffAlarm.sleep(backoffMs(attempt));
      }
    }
    return false;
  }
}

/** Cancels the gRPC call behind a driver subscription; a late error is already listened to. */
const release = async (driver: AllStreamSubscription): Promise<void> => {
  try {
    await driver.unsubscribe();
  } catch {
    // The call never started (no connection) or is already gone.
  }
  driver.destroy();
};
