import type {
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
} from '../ports/EventStore.js';
import type { Position } from '../../shared/Position.js';
import { EventUpcaster, type EventUpcasterOptions } from './EventUpcaster.js';
import type { StoredEventType } from './storedEventTypes.js';
import { withSubscribeToAll, type LogSource } from '../ports/LogSource.js';

export type { LogSource } from '../ports/LogSource.js';

/**
 * Follows `source` with every batch upcast before `options.handle` sees it. A
 * batch with an event that cannot be read hands over the events before it, then
 * fails with the `UndecodableEventError` (which the source offers again, as any
 * failed batch: the subscriber decides to stop, see ProjectionRunner).
 */
export const subscribeUpcast = (source: LogSource, upcaster: EventUpcaster, options: SubscribeOptions): Subscription =>
  source.subscribeToAll({
    ...options,
    handle: async (batch) => {
      const { events, failure } = await upcaster.upcastLog(batch);
      if (events.length > 0) await options.handle(events);
      if (failure) throw failure;
    },
  });

/**
 * The versioning decorator of the EventStore port, wrapped by the composition
 * root around whichever adapter it picks (SQLite or EventStoreDB): every event
 * appended through it records its type's current schema version
 * (`metadata.schemaVersion`), and every read path (`readStream`, `readAll`,
 * `subscribeToAll`) hands up events in their current shapes, upcast in this one
 * place (`EventUpcaster`), so nothing above the event store sees an old shape.
 * It offers `appendToStreams` exactly when the store it wraps does, recording
 * versions there as `append` does.
 */
export class UpcastingEventStore implements EventStore {
  readonly kind: EventStore['kind'];
  readonly upcaster: EventUpcaster;
  readonly appendToStreams?: (appends: readonly StreamAppend[]) => Promise<AppendResult[]>;
  readonly onAppended?: (listener: () => void) => () => void;
  readonly lookNow?: () => void;
  readonly eventIdAt?: (position: Position) => Promise<string | null>;

  constructor(
    readonly inner: EventStore,
    options: EventUpcasterOptions,
  ) {
    this.kind = inner.kind;
    this.upcaster = new EventUpcaster(inner, options);
    // Offered exactly when the wrapped store offers them.
    if (inner.onAppended) this.onAppended = inner.onAppended.bind(inner);
    if (inner.lookNow) this.lookNow = inner.lookNow.bind(inner);
    if (inner.eventIdAt) this.eventIdAt = inner.eventIdAt.bind(inner);
    const appendToStreams = inner.appendToStreams?.bind(inner);
    if (appendToStreams) {
      this.appendToStreams = (appends) =>
        appendToStreams(appends.map((append) => ({ ...append, events: this.stamp(append.events) })));
    }
  }

  append(stream: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.inner.append(stream, this.stamp(events), expected);
  }

  private stamp(events: readonly EventToAppend[]): EventToAppend[] {
    return events.map((event) => this.upcaster.stamp(event));
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.upcaster.upcastStream(stream, await this.inner.readStream(stream, options));
  }

  /** Throws the `UndecodableEventError` of the first event in the range that cannot be read. */
  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    const { events, failure } = await this.upcaster.upcastLog(await this.inner.readAll(options));
    if (failure) throw failure;
    return events;
  }

  headPosition(): Promise<Position | null> {
    return this.inner.headPosition();
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return subscribeUpcast(this.inner, this.upcaster, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The event store with versions recorded on append and upcasting on every read path (idempotent). */
export const withUpcasting = (store: EventStore, types: ReadonlyMap<string, StoredEventType>): UpcastingEventStore =>
  store instanceof UpcastingEventStore ? store : new UpcastingEventStore(store, { types });

/**
 * Another source of the log (the EventStoreDB persistent subscription that feeds
 * the webhook fan-out) with its batches upcast like the event store's own, by
 * the event store's upcaster when it is an `UpcastingEventStore`.
 */
export const upcastingSource = <S extends LogSource>(source: S, eventStore: EventStore): S => {
  if (!(eventStore instanceof UpcastingEventStore)) throw new Error('upcastingSource: the event store must be wrapped in the versioning decorator (withUpcasting)');
  const { upcaster } = eventStore;
  return withSubscribeToAll(source, (options) => subscribeUpcast(source, upcaster, options));
};
