import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import type { RecordedEvent } from '../ports/EventStore.js';
import type { DomainEvent } from '../../shared/Decider.js';
import { tryDecodeStoredEvent } from '../versioning/decodeStoredEvent.js';

/** One kind of aggregate folded from its streams, with its own codec and `evolve`. */
export interface AggregateFold<State> {
  readonly name: string;
  /** Every stream of this aggregate starts with it (`contact-`, …). */
  readonly streamPrefix: string;
  /** Folds one stored event into the stream's state so far; Left with the reason when it does not decode. */
  step(state: State | undefined, event: RecordedEvent): E.Either<string, State>;
}

/**
 * The fold of an aggregate as its decider defines it: events decoded with the
 * codec they are written with, then `evolve`, from `initialState`.
 */
export const aggregateFold = <Event extends DomainEvent, State>(
  name: string,
  streamPrefix: string,
  codec: t.Type<Event, unknown, unknown>,
  decider: { readonly initialState: State; evolve(state: State, event: Event): State },
): AggregateFold<State> => ({
  name,
  streamPrefix,
  step(state, event) {
    const candidate: unknown = { type: event.type, data: event.data };
    // The event codecs transform nothing, so a value they accept (`is`) is its own decoding.
    const decoded = codec.is(candidate) ? E.right(candidate) : tryDecodeStoredEvent(codec, event);
    return E.map((decodedEvent: Event) => decider.evolve(state ?? decider.initialState, decodedEvent))(decoded);
  },
});

/** A stored event its aggregate's codec refuses. */
export interface UndecodableEvent {
  readonly event: RecordedEvent;
  readonly reason: string;
}

/**
 * Every stream of the given aggregates folded again, fed with the log in order
 * (a stream's events come in revision order within it, so one pass over the log
 * folds every stream as reading each stream alone would).
 */
export class LogFolds {
  private readonly states = new Map<AggregateFold<unknown>, Map<string, unknown>>();
  readonly undecodable: UndecodableEvent[] = [];
  events = 0;

  constructor(readonly aggregates: readonly AggregateFold<unknown>[]) {
    for (const aggregate of aggregates) this.states.set(aggregate, new Map());
  }

  apply(batch: readonly RecordedEvent[]): void {
    for (const event of batch) {
      this.events++;
      const aggregate = this.aggregates.find((candidate) => event.stream.startsWith(candidate.streamPrefix));
      if (!aggregate) continue;
      const streams = this.states.get(aggregate)!;
      const next = aggregate.step(streams.get(event.stream), event);
      if (E.isLeft(next)) this.undecodable.push({ event, reason: next.left });
      else streams.set(event.stream, next.right);
    }
  }

  /** Each stream of the aggregate with its folded state. */
  streamsOf<State>(aggregate: AggregateFold<State>): ReadonlyMap<string, State> {
    return (this.states.get(aggregate as AggregateFold<unknown>) ?? new Map()) as ReadonlyMap<string, State>;
  }

  /** A stream's folded state; undefined when it has no (decodable) event. */
  stateOf<State>(aggregate: AggregateFold<State>, stream: string): State | undefined {
    return this.streamsOf(aggregate).get(stream);
  }

  /** Streams folded, over every aggregate. */
  get streams(): number {
    let count = 0;
    for (const streams of this.states.values()) count += streams.size;
    return count;
  }
}
