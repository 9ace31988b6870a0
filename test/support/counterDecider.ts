import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { assertNever, type Decider } from '../../src/shared/Decider.js';

/** A small decider for testing the command handling: a counter with a ceiling. */
export const CounterEvent = t.union([
  t.type({ type: t.literal('Incremented'), data: t.type({ by: t.number }) }),
  t.type({ type: t.literal('Reset'), data: t.type({}) }),
]);
export type CounterEvent = t.TypeOf<typeof CounterEvent>;

export type CounterCommand =
  | { readonly type: 'increment'; readonly by: number; readonly max: number }
  | { readonly type: 'reset' };

export type CounterError = { readonly kind: 'LimitExceeded'; readonly value: number } | { readonly kind: 'NothingToReset' };

export interface CounterState {
  readonly value: number;
}

export const counterDecider: Decider<CounterCommand, CounterEvent, CounterState, CounterError> = {
  initialState: { value: 0 },
  decide(command, state) {
    switch (command.type) {
      case 'increment':
        return state.value + command.by > command.max
          ? E.left({ kind: 'LimitExceeded', value: state.value })
          : E.right([{ type: 'Incremented', data: { by: command.by } }]);
      case 'reset':
        // Resetting a counter at zero changes nothing: no events, not an error.
        return E.right(state.value === 0 ? [] : [{ type: 'Reset', data: {} }]);
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'Incremented':
        return { value: state.value + event.data.by };
      case 'Reset':
        return { value: 0 };
      default:
        return assertNever(event);
    }
  },
};
