import type * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import type { DomainEvent } from '../../shared/Decider.js';
import type { Position } from '../../shared/Position.js';
import type { RecordedEvent } from '../ports/EventStore.js';

/** How an aggregate folds its stream: the codec of its events (current versions) and its decider's `evolve`. */
export interface StreamFolding<Event extends DomainEvent, State> {
  readonly eventCodec: t.Type<Event, unknown, unknown>;
  readonly decider: { readonly initialState: State; evolve(state: State, event: Event): State };
}

/**
 * What an upcast may ask of the log: answered by the one place on each read path
 * that upcasts (`EventUpcaster`), from the stream's events in their current shapes.
 */
export interface UpcastLog {
  /** The state of the event's own stream just before it (its earlier events folded). */
  stateBefore<Event extends DomainEvent, State>(event: RecordedEvent, folding: StreamFolding<Event, State>): Promise<State>;
  /** The state of a stream as of a log position: its events before `position`, folded. */
  stateAt<Event extends DomainEvent, State>(stream: string, position: Position, folding: StreamFolding<Event, State>): Promise<State>;
}

/**
 * Reads a stored event whose `data` is in version n (accepted by that version's
 * codec) and gives its `data` in version n + 1, or Left with the reason it cannot.
 * The domain's upcasters are pure; a step only fetches what one needs and calls it.
 */
export type UpcastStep = (event: RecordedEvent, log: UpcastLog) => Promise<E.Either<string, unknown>>;

/** One stored event type: the codec of every version it was ever stored in, and how each version reads as the next. */
export interface StoredEventType {
  readonly type: string;
  /**
   * The codec of each version, oldest first (`versions[0]` is version 1); the
   * last is the current one, the codec the code writes with. A released
   * version's codec never changes (the schema snapshot test holds them).
   */
  readonly versions: readonly t.Mixed[];
  /** `upcasts[i]` reads version i + 1 as version i + 2. */
  readonly upcasts: readonly UpcastStep[];
  /** The version of an event stored without `metadata.schemaVersion` (written before versions were recorded). */
  readonly unmarkedVersion: (data: unknown) => number;
}

export const storedEventType = (
  type: string,
  versions: readonly t.Mixed[],
  upcasts: readonly UpcastStep[] = [],
  unmarkedVersion: (data: unknown) => number = () => 1,
): StoredEventType => {
  if (versions.length === 0 || upcasts.length !== versions.length - 1) {
    throw new Error(`${type}: ${versions.length} versions need ${Math.max(0, versions.length - 1)} upcasters, not ${upcasts.length}`);
  }
  return { type, versions, upcasts, unmarkedVersion };
};

/** `data` of an event its version's codec accepted, typed as that version (the codecs transform nothing). */
export const storedAs = <C extends t.Mixed>(_codec: C, event: RecordedEvent): t.TypeOf<C> => ({ type: event.type, data: event.data }) as t.TypeOf<C>;

/**
 * Every stored event type of `aggregates`, by type: what the versioning decorator
 * reads and upcasts with. A type declared by two aggregates is refused (one would
 * hide the other).
 */
export const storedEventTypesOf = (aggregates: readonly { readonly name: string; readonly storedEvents: readonly StoredEventType[] }[]): ReadonlyMap<string, StoredEventType> => {
  const types = new Map<string, StoredEventType>();
  for (const aggregate of aggregates) {
    for (const type of aggregate.storedEvents) {
      if (types.has(type.type)) throw new Error(`stored event type ${type.type} is declared twice (again by ${aggregate.name})`);
      types.set(type.type, type);
    }
  }
  return types;
};

/** The current version of each declared type (what a new event records). */
export const currentVersionOf = (type: StoredEventType): number => type.versions.length;
