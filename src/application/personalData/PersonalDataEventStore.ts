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
import { SubjectKeyTakenError, WrongExpectedRevisionError } from '../ports/EventStore.js';
import type { Position } from '../../shared/Position.js';
import type { FieldsDeclaration } from '../../shared/PersonalData.js';
import { sealedSubjectsIn, sealPersonalFields, subjectsIn, unsealPersonalFields } from './personalSeal.js';
import type { SubjectKeys } from './SubjectKeys.js';
import type { PersonalStreamNames } from './PersonalStreamNames.js';
import { withSubscribeToAll, type LogSource } from '../ports/LogSource.js';

/**
 * The personal-data decorator of the EventStore port, between an adapter and the
 * versioning decorator: every event appended through it has the personal fields
 * its type declares sealed under its subjects' keys (`sealPersonalFields`; the
 * keys made, in one round trip per append, for subjects that have none), and every
 * read path hands up events with them opened again, or, for a subject erased
 * since, null and listed in `erasedFields`. The keys of a read batch are fetched in
 * one round trip. Nothing above it sees a sealed value; nothing below it sees a
 * personal one.
 *
 * The subscriptions of the process that appended an event read it back within
 * moments (the projections, the webhook fan-out): they get its data as it was
 * appended (`RecentlyAppended`) instead of opening it again. Reads of streams and
 * of the log (the API's, the commands') always open with the keys the store has now.
 */
export class PersonalDataEventStore implements EventStore {
  readonly kind: EventStore['kind'];
  readonly appendToStreams?: (appends: readonly StreamAppend[]) => Promise<AppendResult[]>;
  readonly onAppended?: (listener: () => void) => () => void;
  readonly lookNow?: () => void;
  readonly eventIdAt?: (position: Position) => Promise<string | null>;

  private readonly recent = new RecentlyAppended();

  constructor(
    readonly inner: EventStore,
    private readonly keys: SubjectKeys,
    /** By stored event type: the fields of its data, personal or not (the features' declarations). */
    private readonly declarations: ReadonlyMap<string, FieldsDeclaration>,
    /** Stream names with a person's value in them, stored with it hashed (absent: every name is stored as given). */
    private readonly streamNames?: PersonalStreamNames,
  ) {
    this.kind = inner.kind;
    if (inner.onAppended) this.onAppended = inner.onAppended.bind(inner);
    if (inner.lookNow) this.lookNow = inner.lookNow.bind(inner);
    if (inner.eventIdAt) this.eventIdAt = inner.eventIdAt.bind(inner);
    if (inner.appendToStreams) this.appendToStreams = (appends) => this.appendSealed(appends);
    keys.onErased(() => this.recent.clear());
  }

  async append(stream: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    const [result] = await this.appendSealed([{ stream, events, expected }]);
    return result!;
  }

  /** The name a stream is stored under (see `PersonalStreamNames`). */
  private stored(stream: string): string {
    return this.streamNames ? this.streamNames.stored(stream) : stream;
  }

  /**
   * Seals, then appends. Where the store keeps new subjects' keys in the append's
   * own commit (`appendToStreamsWithKeys`), the keys of subjects not seen yet are
   * made here and kept with it, so a new person costs no commit of its own; a key
   * made meanwhile by another write, or an erasure in between, rejects the append,
   * which is sealed again with what the store now has. Elsewhere the keys are kept
   * first (`SubjectKeys.keysFor`), then the events appended.
   */
  private async appendSealed(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    const events = appends.flatMap((append) => append.events);
    const subjects = events.flatMap((event) => {
      const declaration = this.declarations.get(event.type);
      return declaration ? subjectsIn(event.data, declaration) : [];
    });
    const withKeys = this.inner.appendToStreamsWithKeys?.bind(this.inner);
    for (let attempt = 1; ; attempt++) {
      const made = withKeys && attempt === 1 ? this.keys.keysToMake(subjects) : null;
      const keys = made ? made.keys : await this.keys.keysFor(subjects);
      const sealed = this.sealAll(events, keys);
      let next = 0;
      const sealedAppends = appends.map((append) => ({ ...append, stream: this.stored(append.stream), events: append.events.map(() => sealed[next++]!) }));
      try {
        const results = await this.appendAll(sealedAppends, made?.texts);
        events.forEach((event, index) => {
          if (sealed[index] !== event) this.recent.add(event.id, event.data);
        });
        return results;
      } catch (error) {
        // A stream's refusal names it as its caller does (which compares it), and shows it as it is stored.
        if (error instanceof WrongExpectedRevisionError) {
          const refused = appends.find((_, index) => sealedAppends[index]!.stream === error.stream);
          if (refused && refused.stream !== error.stream) throw new WrongExpectedRevisionError(refused.stream, error.expected, error.actual, error.stream);
        }
        if (!(error instanceof SubjectKeyTakenError) || attempt > 1) throw error;
      }
    }
  }

  private appendAll(appends: readonly StreamAppend[], newKeys: ReadonlyMap<string, string> | undefined): Promise<AppendResult[]> {
    if (newKeys && newKeys.size > 0) return this.inner.appendToStreamsWithKeys!(appends, newKeys);
    if (appends.length === 1 && !this.inner.appendToStreams) {
      const { stream, events, expected } = appends[0]!;
      return this.inner.append(stream, events, expected).then((result) => [result]);
    }
    return this.inner.appendToStreams ? this.inner.appendToStreams(appends) : Promise.reject(new Error('one stream at a time'));
  }

  /** The events with their personal fields sealed under `keys`. */
  private sealAll(events: readonly EventToAppend[], keys: ReadonlyMap<string, Buffer>): EventToAppend[] {
    return events.map((event) => {
      const declaration = this.declarations.get(event.type);
      return declaration && declaration.personal.length > 0 ? { ...event, data: sealPersonalFields(event.id, event.data, declaration, keys) } : event;
    });
  }

  /**
   * The events with their sealed values opened, the keys of the batch fetched at
   * once; with `recent`, an event this process appended lately is handed up as it
   * was appended.
   */
  private async openAll(events: readonly RecordedEvent[], recent?: RecentlyAppended): Promise<RecordedEvent[]> {
    if (recent) {
      let hits = 0;
      const known = events.map((event) => {
        const data = recent.get(event.id);
        if (data === undefined) return event;
        hits++;
        return { ...event, data };
      });
      if (hits === events.length) return known;
      if (hits > 0) events = known;
    }
    const declared = (event: RecordedEvent) => this.declarations.get(event.type);
    const subjects = events.flatMap((event) => {
      const declaration = declared(event);
      return declaration ? sealedSubjectsIn(event.data, declaration) : [];
    });
    if (subjects.length === 0) return [...events];
    const keys = await this.keys.existingKeys(subjects);
    return events.map((event) => {
      const declaration = declared(event);
      if (!declaration || sealedSubjectsIn(event.data, declaration).length === 0) return event;
      const { data, erasedFields } = unsealPersonalFields(event.id, event.data, declaration, keys);
      return erasedFields.length === 0 ? { ...event, data } : { ...event, data, erasedFields };
    });
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.openAll(await this.inner.readStream(this.stored(stream), options));
  }

  async readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.openAll(await this.inner.readAll(options));
  }

  headPosition(): Promise<Position | null> {
    return this.inner.headPosition();
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return this.openingSubscription(this.inner, options);
  }

  /**
   * Another source of the log (the EventStoreDB persistent subscription that feeds
   * the webhook fan-out) with its batches opened as this store's own are.
   */
  openedSource<S extends LogSource>(source: S): S {
    return withSubscribeToAll(source, (options) => this.openingSubscription(source, options));
  }

  private openingSubscription(source: LogSource, options: SubscribeOptions): Subscription {
    return source.subscribeToAll({ ...options, handle: async (batch) => options.handle(await this.openAll(batch, this.recent)) });
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * The data of the events this process appended lately, as they were before
 * sealing, by event id: at most `capacity` of them, none older than `maxAgeMs`,
 * and none after an erasure made here (`clear`). Another process's erasure cannot
 * clear it: what it holds then is gone within `maxAgeMs`, and the subscriptions
 * that read it apply the erasure's event after it.
 */
export class RecentlyAppended {
  /** Two generations: when the newer holds half the capacity, the older is dropped whole (cheaper than evicting one by one). */
  private newer = new Map<string, { readonly data: unknown; readonly at: number }>();
  private older = new Map<string, { readonly data: unknown; readonly at: number }>();

  constructor(
    private readonly capacity = 4096,
    private readonly maxAgeMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  add(eventId: string, data: unknown): void {
    if (this.newer.size >= this.capacity / 2) {
      this.older = this.newer;
      this.newer = new Map();
    }
    this.newer.set(eventId, { data, at: this.now() });
  }

  /** The event's data as appended, if it was lately. */
  get(eventId: string): unknown {
    const entry = this.newer.get(eventId) ?? this.older.get(eventId);
    return entry && this.now() - entry.at <= this.maxAgeMs ? entry.data : undefined;
  }

  clear(): void {
    this.newer = new Map();
    this.older = new Map();
  }
}
