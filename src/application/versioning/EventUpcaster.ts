import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import type { DomainEvent } from '../../shared/Decider.js';
import { comparePositions, type Position } from '../../shared/Position.js';
import { formatValidationErrors } from '../../shared/validationReporter.js';
import type { EventStore, EventToAppend, RecordedEvent, RecordedEventVersion } from '../ports/EventStore.js';
import { UndecodableEventError } from './UndecodableEventError.js';
import { type StoredEventType, type StreamFolding, type UpcastLog } from './storedEventTypes.js';

/** An event that needs one or more upcasts, with what its classification found. */
interface Pending {
  readonly pending: RecordedEvent;
  readonly type: StoredEventType;
  readonly stored: number;
  readonly recorded: boolean;
}

const isPending = (value: RecordedEvent | Pending): value is Pending => 'pending' in value;

/** The event with `data` in its current shape and its versions (a literal of fixed shape: cheaper than a spread, on every event read). */
const withVersion = (event: RecordedEvent, data: unknown, version: RecordedEventVersion): RecordedEvent => ({
  id: event.id,
  stream: event.stream,
  revision: event.revision,
  position: event.position,
  type: event.type,
  data,
  metadata: event.metadata,
  recordedAt: event.recordedAt,
  version,
  // The paths of erased values: an upcast keeps personal fields where they were (none moves one).
  ...(event.erasedFields !== undefined ? { erasedFields: event.erasedFields } : {}),
});

/** Whether some of the event's personal values were erased (they read as null). */
const erased = (event: RecordedEvent): boolean => (event.erasedFields?.length ?? 0) > 0;

/** Why `codec` refuses the event, or null when it accepts it (`is` first: the codecs transform nothing). */
const refusal = (codec: t.Mixed, event: { readonly type: string; readonly data: unknown }): string | null => {
  const candidate = { type: event.type, data: event.data };
  if (codec.is(candidate)) return null;
  const decoded = codec.decode(candidate);
  return E.isLeft(decoded) ? JSON.stringify(formatValidationErrors(decoded.left)) : null;
};

/**
 * One stream's events in their current shapes, read from its start, with the
 * states an aggregate's fold reaches after each (computed when first asked).
 */
class StreamSoFar {
  readonly events: RecordedEvent[] = [];
  /** The extension in progress: one at a time, so that events are added in revision order. */
  extending: Promise<void> | null = null;
  /** The event after `events` when it cannot be read: the stream is known up to it, never past it. */
  unreadable: UndecodableEventError | null = null;
  private folding: StreamFolding<DomainEvent, unknown> | null = null;
  private states: unknown[] = [];

  /** The fold of the first `count` events. */
  stateAfter<Event extends DomainEvent, State>(count: number, folding: StreamFolding<Event, State>): State {
    const asked = folding as unknown as StreamFolding<DomainEvent, unknown>;
    if (this.folding !== asked) {
      this.folding = asked;
      this.states = [];
    }
    const upTo = Math.min(count, this.events.length);
    while (this.states.length < upTo) {
      const i = this.states.length;
      const previous = i === 0 ? asked.decider.initialState : this.states[i - 1];
      const { type, data } = this.events[i]!;
      const candidate = { type, data };
      // Types the aggregate does not fold (none in its own stream, in practice) leave the state as it was.
      this.states.push(asked.eventCodec.is(candidate) ? asked.decider.evolve(previous, candidate) : previous);
    }
    return (upTo === 0 ? asked.decider.initialState : this.states[upTo - 1]) as State;
  }

  /** How many of the known events lie before `position` in the log. */
  countBefore(position: Position): number {
    let count = this.events.length;
    while (count > 0 && comparePositions(this.events[count - 1]!.position, position) >= 0) count--;
    return count;
  }

  /** True when every event of the stream before `position` is known (a later one is, or is the unreadable one). */
  knowsBefore(position: Position): boolean {
    const last = this.unreadable?.position ?? this.events[this.events.length - 1]?.position;
    return last !== undefined && comparePositions(last, position) >= 0;
  }
}

export interface EventUpcasterOptions {
  /** The stored event types and their versions: every type the registry of features declares (src/features). */
  readonly types: ReadonlyMap<string, StoredEventType>;
  /** How many streams the log paths keep folded for upcasts that need earlier events; default 1000. */
  readonly cachedStreams?: number;
}

/**
 * Turns stored events into their current shapes: the one place that reads
 * versions and upcasts, used by every read path of `UpcastingEventStore`.
 *
 * For each event of a declared type: its stored version is `metadata.schemaVersion`,
 * or for an event written before versions were recorded the type's rule for
 * unmarked events (`unmarkedVersion`); that version's codec must accept it; then
 * each upcaster in turn takes it to the current version, whose codec must accept
 * the result. The event comes out with `version {current, stored, recorded}`.
 * Anything else (a version this release does not know, a codec's refusal, an
 * upcaster that cannot) is an `UndecodableEventError` naming the event.
 *
 * Upcasts that need what came before the event in the log (the state of its
 * stream, or of another stream at its position) get it from `UpcastLog`: on a
 * stream read, from the stream itself; on the log paths (`readAll`,
 * subscriptions), from a bounded cache of streams read from their start and kept
 * in their current shapes (least recently used streams are dropped first).
 */
export class EventUpcaster {
  private readonly types: ReadonlyMap<string, StoredEventType>;
  private readonly cachedStreams: number;
  private readonly streamCache = new Map<string, StreamSoFar>();

  constructor(
    /** Where the streams an upcast needs are read (the undecorated store, or one whose events come upcast already). */
    private readonly streams: Pick<EventStore, 'readStream'>,
    options: EventUpcasterOptions,
  ) {
    this.types = options.types;
    this.cachedStreams = Math.max(1, options.cachedStreams ?? 1000);
  }

  /** The event with its type's current version recorded in its metadata (an explicit one is kept); others as they are. */
  stamp(event: EventToAppend): EventToAppend {
    const type = this.types.get(event.type);
    if (!type || event.metadata.schemaVersion !== undefined) return event;
    return { ...event, metadata: { ...event.metadata, schemaVersion: type.versions.length } };
  }

  /**
   * Events of one stream (a `readStream` result: consecutive revisions) in their
   * current shapes. Throws an `UndecodableEventError` for the first that cannot be.
   */
  async upcastStream(stream: string, events: readonly RecordedEvent[]): Promise<RecordedEvent[]> {
    const classified = events.map((event) => this.classify(event));
    if (!classified.some(isPending)) return classified as RecordedEvent[];
    // Some need what came before them in the stream: fold it here, from its start.
    const soFar = new StreamSoFar();
    const first = events[0]!.revision;
    if (first > 0) soFar.events.push(...(await this.upcastStream(stream, await this.streams.readStream(stream, { maxCount: first }))));
    const log = this.logWithin(stream, soFar);
    const out: RecordedEvent[] = [];
    for (const item of classified) {
      const ready = isPending(item) ? await this.complete(item, log) : item;
      soFar.events.push(ready);
      out.push(ready);
    }
    return out;
  }

  /**
   * Events of the log (`readAll`, a subscription's batch: any streams, in log
   * order) in their current shapes, up to the first that cannot be read, which
   * is returned as `failure` (null when every event could be).
   */
  async upcastLog(events: readonly RecordedEvent[]): Promise<{ events: RecordedEvent[]; failure: UndecodableEventError | null }> {
    const out: RecordedEvent[] = [];
    for (const event of events) {
      try {
        const item = this.classify(event);
        out.push(isPending(item) ? await this.complete(item, this.cachedLog) : item);
      } catch (error) {
        if (error instanceof UndecodableEventError) return { events: out, failure: error };
        throw error;
      }
    }
    return { events: out, failure: null };
  }

  /**
   * The event ready as it is (current version, or a type this code does not
   * declare, or upcast already), or what its upcast needs. Throws an
   * `UndecodableEventError` when its version cannot be read at all.
   */
  private classify(event: RecordedEvent): RecordedEvent | Pending {
    if (event.version !== undefined) return event;
    const type = this.types.get(event.type);
    if (!type) return event;
    const marked: unknown = event.metadata?.schemaVersion;
    const recorded = marked !== undefined;
    const stored = recorded ? marked : type.unmarkedVersion(event.data);
    const current = type.versions.length;
    if (typeof stored !== 'number' || !Number.isSafeInteger(stored) || stored < 1) {
      throw new UndecodableEventError(event, `its schema version ${JSON.stringify(stored)} is not a version (1, 2, …)`, null);
    }
    if (stored > current) {
      throw new UndecodableEventError(
        event,
        `it is stored in version ${stored} of ${event.type}, and this release reads versions 1 to ${current}: it was written by a newer release`,
        stored,
      );
    }
    // An erased person's values read as null, which the versions written before erasure existed do not
    // allow: an erased event of an older version is judged by the current version's codec only, after its upcast.
    const refused = erased(event) && stored < current ? null : refusal(type.versions[stored - 1]!, event);
    if (refused !== null) throw new UndecodableEventError(event, `version ${stored} of ${event.type} refuses it: ${refused}`, stored);
    if (stored === current) return withVersion(event, event.data, { current, stored, recorded });
    return { pending: event, type, stored, recorded };
  }

  /** Runs the upcasters from the stored version to the current one, checking the result with the current version's codec. */
  private async complete({ pending: event, type, stored, recorded }: Pending, log: UpcastLog): Promise<RecordedEvent> {
    const current = type.versions.length;
    let data = event.data;
    for (let from = stored; from < current; from++) {
      const next = await this.step(type, from, { ...event, data }, log);
      if (E.isLeft(next)) {
        throw new UndecodableEventError(event, `no upcaster reads it: version ${from} → ${from + 1}: ${next.left}`, stored);
      }
      // The result is judged by the current version's codec, not by those in between: a person's values erased
      // since read as null (in this event, or in another stream an upcaster reads), which only versions written
      // after sealing existed can hold.
      const refused = from + 1 < current ? null : refusal(type.versions[from]!, { type: event.type, data: next.right });
      if (refused !== null) {
        throw new UndecodableEventError(event, `the upcaster from version ${from} gives data version ${from + 1} refuses: ${refused}`, stored);
      }
      data = next.right;
    }
    return withVersion(event, data, { current, stored, recorded });
  }

  /**
   * One upcaster. What it needs of the log may itself be unreadable (an earlier
   * event of the stream): then this event cannot be read either, and the error
   * names it, with the earlier one as the reason.
   */
  private async step(type: StoredEventType, from: number, event: RecordedEvent, log: UpcastLog): Promise<E.Either<string, unknown>> {
    try {
      return await type.upcasts[from - 1]!(event, log);
    } catch (error) {
      if (!(error instanceof UndecodableEventError) || error.eventId === event.id) throw error;
      return E.left(`it needs event ${error.eventId} (${error.type}) at position ${error.position} in ${error.stream}, which cannot be read: ${error.reason}`);
    }
  }

  /** What upcasts on the log paths ask: from the stream cache. */
  private readonly cachedLog: UpcastLog = {
    stateBefore: async (event, folding) => {
      const soFar = await this.streamSoFar(event.stream, (known) => known.events.length >= event.revision);
      return soFar.stateAfter(event.revision, folding);
    },
    stateAt: async (stream, position, folding) => {
      const soFar = await this.streamSoFar(stream, (known) => known.knowsBefore(position));
      return soFar.stateAfter(soFar.countBefore(position), folding);
    },
  };

  /** What upcasts ask while `soFar` (the stream `stream`, being read in order) grows: itself for that stream, the cache for others. */
  private logWithin(stream: string, soFar: StreamSoFar): UpcastLog {
    return {
      stateBefore: async (event, folding) =>
        event.stream === stream ? soFar.stateAfter(event.revision, folding) : this.cachedLog.stateBefore(event, folding),
      stateAt: async (other, position, folding) =>
        other === stream ? soFar.stateAfter(soFar.countBefore(position), folding) : this.cachedLog.stateAt(other, position, folding),
    };
  }

  /**
   * The cached stream, read on (from where the cache stops) unless `enough`
   * already holds. Streams only grow, so a cached prefix never goes stale.
   */
  private async streamSoFar(stream: string, enough: (known: StreamSoFar) => boolean): Promise<StreamSoFar> {
    let soFar = this.streamCache.get(stream);
    if (soFar) {
      this.streamCache.delete(stream); // most recently used last
    } else {
      soFar = new StreamSoFar();
      const oldest = this.streamCache.size >= this.cachedStreams ? this.streamCache.keys().next() : null;
      if (oldest && !oldest.done) this.streamCache.delete(oldest.value);
    }
    this.streamCache.set(stream, soFar);
    const known = soFar;
    while (known.extending) await known.extending;
    if (enough(known)) return known;
    if (!known.unreadable) {
      known.extending = this.readOn(stream, known).finally(() => (known.extending = null));
      await known.extending;
    }
    // What is asked lies past an event that cannot be read: so can it not be answered.
    if (known.unreadable && !enough(known)) throw known.unreadable;
    return known;
  }

  /**
   * Reads the stream on from the cached prefix, upcasting each event with the
   * prefix before it, up to its end or to an event that cannot be read (kept as
   * `unreadable`: only what lies past it needs it).
   */
  private async readOn(stream: string, soFar: StreamSoFar): Promise<void> {
    const log = this.logWithin(stream, soFar);
    for (const event of await this.streams.readStream(stream, { fromRevision: soFar.events.length })) {
      if (event.revision !== soFar.events.length) {
        throw new Error(`Stream ${stream}: read revision ${event.revision} where ${soFar.events.length} was next`);
      }
      try {
        const item = this.classify(event);
        soFar.events.push(isPending(item) ? await this.complete(item, log) : item);
      } catch (error) {
        if (!(error instanceof UndecodableEventError)) throw error;
        soFar.unreadable = error;
        return;
      }
    }
  }
}
