import type * as t from 'io-ts';
import type { DomainEvent } from '../../shared/Decider.js';
import { decodeStoredEvent } from '../versioning/decodeStoredEvent.js';
import type { EventStore } from '../ports/EventStore.js';

/** What folding a stream needs: the codec its events are written with and the decider's fold. */
export interface AggregateFolding<Event extends DomainEvent, State> {
  readonly eventCodec: t.Decoder<unknown, Event>;
  readonly decider: { readonly initialState: State; evolve(state: State, event: Event): State };
}

export interface LoadedAggregate<State> {
  readonly state: State;
  /** The revision of the stream's last event; -1 when the stream is empty. */
  readonly revision: number;
}

/**
 * Reads a stream, decodes every event with the aggregate's codec and folds them
 * with its `evolve`: the one place the write side turns stored events into state.
 * An event that does not decode stops with an `UndecodableEventError` naming it.
 */
export const loadAggregate = async <Event extends DomainEvent, State>(
  eventStore: Pick<EventStore, 'readStream'>,
  stream: string,
  { eventCodec, decider }: AggregateFolding<Event, State>,
): Promise<LoadedAggregate<State>> => {
  const stored = await eventStore.readStream(stream);
  let state = decider.initialState;
  for (const event of stored) state = decider.evolve(state, decodeStoredEvent(eventCodec, event));
  return { state, revision: stored.length === 0 ? -1 : stored[stored.length - 1]!.revision };
};
