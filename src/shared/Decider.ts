import type { Either } from 'fp-ts/lib/Either.js';

/** A domain event as the deciders see it: a type tag and its data. */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
}

/**
 * A pure, synchronous decider (Chassaing's pattern): `decide` turns a command and
 * the current state into new events or a domain error; `evolve` folds an event
 * into the state. Time and ids come in on the command, never from inside.
 */
export interface Decider<Command, Event extends DomainEvent, State, DomainError> {
  readonly initialState: State;
  decide(command: Command, state: State): Either<DomainError, readonly Event[]>;
  evolve(state: State, event: Event): State;
}

/** Ends a switch over a union; a missing case is a compile error. */
export const assertNever = (value: never): never => {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
};
