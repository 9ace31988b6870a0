import * as E from 'fp-ts/lib/Either.js';
import type { Decider, DomainEvent } from '../../src/shared/Decider.js';

/** The events a decider decides, or a thrown error: the benchmarks' seeds only issue commands that succeed. */
export const decided = <C, Ev extends DomainEvent, S, Err>(decider: Decider<C, Ev, S, Err>, command: C, state: S): readonly Ev[] => {
  const result = decider.decide(command, state);
  if (E.isLeft(result)) throw new Error(`seed command refused: ${JSON.stringify(result.left)}`);
  return result.right;
};

/** The state after `events`. */
export const fold = <C, Ev extends DomainEvent, S, Err>(decider: Decider<C, Ev, S, Err>, state: S, events: readonly Ev[]): S =>
  events.reduce((s, e) => decider.evolve(s, e), state);
