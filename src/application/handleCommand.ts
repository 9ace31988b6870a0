import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import type { Decider, DomainEvent } from '../shared/Decider.js';
import type { EventMetadata } from '../shared/EventMetadata.js';
import type { Position } from '../shared/Position.js';
import { formatValidationErrors } from '../shared/validationReporter.js';
import {
  WrongExpectedRevisionError,
  type EventStore,
  type RecordedEvent,
} from './ports/EventStore.js';

export interface CommandHandlerDeps {
  readonly eventStore: EventStore;
  /** Event ids; injected so that tests can make them predictable. */
  readonly newEventId: () => string;
}

export interface CommandSpec<Command, Event extends DomainEvent, State, DomainError> {
  readonly decider: Decider<Command, Event, State, DomainError>;
  /** Decodes stored events of this stream (the same codec the events are written with). */
  readonly eventCodec: t.Decoder<unknown, Event>;
  readonly stream: string;
  readonly command: Command;
  readonly metadata: EventMetadata;
  /** How many times to decide again after a concurrent write; default 5. */
  readonly maxAttempts?: number;
}

export interface CommandOutcome<Event, State> {
  readonly events: readonly Event[];
  readonly state: State;
  /** The stream's revision after the command (-1: the stream is still empty). */
  readonly revision: number;
  /** Log position of the last appended event; null when the command changed nothing. */
  readonly position: Position | null;
}

/** A stored event that its stream's codec refuses: the log and the code disagree. */
export class UndecodableEventError extends Error {
  override readonly name = 'UndecodableEventError';
  constructor(event: RecordedEvent, reason: string) {
    super(`Event ${event.id} (${event.type}) in ${event.stream} does not decode: ${reason}`);
  }
}

/** Too many concurrent writers on one stream; the client may retry. */
export class ConcurrencyExhaustedError extends Error {
  override readonly name = 'ConcurrencyExhaustedError';
  constructor(readonly stream: string, readonly attempts: number) {
    super(`Stream ${stream} kept changing; gave up after ${attempts} attempts`);
  }
}

const decodeStored = <Event>(codec: t.Decoder<unknown, Event>, event: RecordedEvent): Event => {
  const decoded = codec.decode({ type: event.type, data: event.data });
  if (E.isLeft(decoded)) throw new UndecodableEventError(event, JSON.stringify(formatValidationErrors(decoded.left)));
  return decoded.right;
};

/**
 * Reads the stream, folds it, decides, and appends with the revision it read.
 * A concurrent write makes it read and decide again, a bounded number of times.
 * A domain error is returned (Left), never thrown.
 */
export const handleCommand = async <Command, Event extends DomainEvent, State, DomainError>(
  deps: CommandHandlerDeps,
  spec: CommandSpec<Command, Event, State, DomainError>,
): Promise<E.Either<DomainError, CommandOutcome<Event, State>>> => {
  const { decider } = spec;
  const maxAttempts = spec.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    const stored = await deps.eventStore.readStream(spec.stream);
    let state = decider.initialState;
    for (const event of stored) state = decider.evolve(state, decodeStored(spec.eventCodec, event));
    const revision = stored.length === 0 ? -1 : stored[stored.length - 1]!.revision;

    const decision = decider.decide(spec.command, state);
    if (E.isLeft(decision)) return decision;
    const events = decision.right;
    if (events.length === 0) return E.right({ events, state, revision, position: null });

    try {
      const result = await deps.eventStore.append(
        spec.stream,
        events.map((event) => ({
          id: deps.newEventId(),
          type: event.type,
          data: event.data,
          metadata: spec.metadata,
        })),
        revision === -1 ? 'no_stream' : revision,
      );
      const next = events.reduce(decider.evolve, state);
      return E.right({ events, state: next, revision: result.nextRevision, position: result.position });
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= maxAttempts) throw new ConcurrencyExhaustedError(spec.stream, attempt);
    }
  }
};
