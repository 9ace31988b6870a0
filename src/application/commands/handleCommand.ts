import * as E from 'fp-ts/lib/Either.js';
import type { Decider, DomainEvent } from '../../shared/Decider.js';
import type { EventMetadata } from '../../shared/EventMetadata.js';
import type { Position } from '../../shared/Position.js';
import { ConcurrencyExhaustedError } from './ConcurrencyExhaustedError.js';
import { PreconditionFailedError, type RevisionPrecondition } from './PreconditionFailedError.js';
import type { CommandDeps } from './CommandDeps.js';
import { loadAggregate, type AggregateFolding } from './loadAggregate.js';
import { WrongExpectedRevisionError, type StreamAppend } from '../ports/EventStore.js';

/** A value, or how to make it from the stream's folded state (read again on every attempt). */
export type FromState<State, T> = T | ((state: State) => T);

export interface CommandSpec<Command, Event extends DomainEvent, State, DomainError> extends AggregateFolding<Event, State> {
  readonly decider: Decider<Command, Event, State, DomainError>;
  readonly stream: string;
  /** The command, or how to build it from the current state (where the command depends on it). */
  readonly command: FromState<State, Command>;
  /** Who caused the events; may also depend on the state (for example the company an entity belongs to). */
  readonly metadata: FromState<State, EventMetadata>;
  /** How many times to decide again after a concurrent write; default 5. */
  readonly maxAttempts?: number;
  /**
   * A conditional write (`If-Match`): the revision read must satisfy it, else
   * `PreconditionFailedError` and nothing is written. That revision is the one the
   * append expects, so no write can come in between; after a conflict the stream
   * is read again and checked again (a moved stream fails it, unless the caller
   * accepts its new revision too). An empty stream is not checked: the decider
   * answers for an entity that does not exist (a 404 before any 412).
   */
  readonly precondition?: RevisionPrecondition;
  /**
   * The stream is named after an id made for this command (a create), so it does
   * not exist yet: the command is decided on the initial state without reading the
   * stream. Its append still expects no stream, so a stream that exists after all
   * is refused (`WrongExpectedRevisionError`), and `handleCommand` reads it on its
   * next attempt.
   */
  readonly newStream?: boolean;
}

export interface CommandOutcome<Event, State> {
  readonly events: readonly Event[];
  readonly state: State;
  /** The stream's revision after the command (-1: the stream is still empty). */
  readonly revision: number;
  /** Log position of the last appended event; null when the command changed nothing. */
  readonly position: Position | null;
}

const resolve = <State, T>(value: FromState<State, T>, state: State): T =>
  typeof value === 'function' ? (value as (state: State) => T)(state) : value;

/** A command decided on the state read, not yet appended. */
export interface Decision<Event, State> {
  /** The stream's state as read. */
  readonly state: State;
  /** The revision read (-1: the stream is empty). */
  readonly revision: number;
  readonly events: readonly Event[];
  /** The state once `events` are appended. */
  readonly next: State;
  /** What to append: the events with their ids and metadata, expecting the revision read. */
  readonly append: StreamAppend;
}

/**
 * One attempt of `handleCommand` without its append: reads and folds the stream,
 * checks the precondition, decides. For writes that append it together with other
 * streams' events (`EventStore.appendToStreams`); they retry on a conflict as
 * `handleCommand` does.
 */
export const decideCommand = async <Command, Event extends DomainEvent, State, DomainError>(
  deps: Pick<CommandDeps, 'eventStore' | 'newId'>,
  spec: CommandSpec<Command, Event, State, DomainError>,
): Promise<E.Either<DomainError, Decision<Event, State>>> => {
  const { decider } = spec;
  const { state, revision } = spec.newStream
    ? { state: decider.initialState, revision: -1 }
    : await loadAggregate(deps.eventStore, spec.stream, spec);
  if (spec.precondition && revision !== -1 && !spec.precondition(revision)) throw new PreconditionFailedError(spec.stream, revision);
  const decision = decider.decide(resolve(spec.command, state), state);
  if (E.isLeft(decision)) return decision;
  const events = decision.right;
  // The metadata may depend on the state: only asked for when there is something to append.
  const toAppend = (metadata: EventMetadata) =>
    events.map((event) => ({ id: deps.newId(), type: event.type, data: event.data, metadata }));
  return E.right({
    state,
    revision,
    events,
    next: events.reduce(decider.evolve, state),
    append: {
      stream: spec.stream,
      events: events.length === 0 ? [] : toAppend(resolve(spec.metadata, state)),
      expected: revision === -1 ? 'no_stream' : revision,
    },
  });
};

/**
 * Reads and folds the stream (`loadAggregate`), decides, and appends with the
 * revision it read. A concurrent write makes it read and decide again, a bounded
 * number of times, then `ConcurrencyExhaustedError`. A domain error is returned
 * (Left), never thrown.
 */
export const handleCommand = async <Command, Event extends DomainEvent, State, DomainError>(
  deps: Pick<CommandDeps, 'eventStore' | 'newId'>,
  spec: CommandSpec<Command, Event, State, DomainError>,
): Promise<E.Either<DomainError, CommandOutcome<Event, State>>> => {
  const maxAttempts = spec.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    // A stream assumed new that turned out to exist is read from the second attempt on.
    const decided = await decideCommand(deps, attempt === 1 || !spec.newStream ? spec : { ...spec, newStream: false });
    if (E.isLeft(decided)) return decided;
    const { events, state, revision, next, append } = decided.right;
    if (events.length === 0) return E.right({ events, state, revision, position: null });
    try {
      const result = await deps.eventStore.append(append.stream, append.events, append.expected);
      return E.right({ events, state: next, revision: result.nextRevision, position: result.position });
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= maxAttempts) throw ConcurrencyExhaustedError.after(error, attempt);
    }
  }
};
