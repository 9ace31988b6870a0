import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import type { Decider, DomainEvent } from '../../src/shared/Decider.js';

/**
 * Decider specification: given(past events).when(command).then(new events) or
 * .thenError(domain error). Pure: no store, no clock.
 */
export const specFor = <C, Ev extends DomainEvent, S, Err>(decider: Decider<C, Ev, S, Err>) => ({
  given: (...events: readonly Ev[]) => ({
    when: (command: C) => {
      const state = events.reduce(decider.evolve, decider.initialState);
      const result = decider.decide(command, state);
      return {
        then: (...expected: readonly Ev[]) => {
          if (E.isLeft(result)) expect.fail(`expected events, got error ${JSON.stringify(result.left)}`);
          expect(result.right).to.deep.equal(expected);
        },
        thenError: (expected: Err) => {
          if (E.isRight(result)) expect.fail(`expected an error, got events ${JSON.stringify(result.right)}`);
          expect(result.left).to.deep.equal(expected);
        },
      };
    },
  }),
});
