import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type { UserCommand } from './userCommands.js';
import type { UserError } from './userErrors.js';
import type { UserEvent } from './userEvents.js';

/** No user yet; a user of a company; or an erased one, of whom only the ids and the time are left. */
export type UserState =
  | { readonly status: 'none' }
  | { readonly status: 'created'; readonly userId: string; readonly companyId: string }
  | { readonly status: 'erased'; readonly userId: string; readonly companyId: string; readonly erasedAt: string };

export const userDecider: Decider<UserCommand, UserEvent, UserState, UserError> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'CreateUser':
        if (state.status !== 'none') return E.left({ kind: 'UserAlreadyExists', userId: command.userId });
        return E.right([
          {
            type: 'UserCreated',
            data: {
              userId: command.userId,
              companyId: command.companyId,
              name: command.name,
              email: command.email,
              createdAt: toIsoTimestamp(command.at),
            },
          },
        ]);
      case 'EraseUser':
        // Another company's user is as unknown as none.
        if (state.status === 'none' || state.companyId !== command.companyId) return E.left({ kind: 'UserNotFound', userId: command.userId });
        if (state.status === 'erased') return E.right([]);
        return E.right([{ type: 'UserErased', data: { userId: command.userId, companyId: command.companyId, erasedAt: toIsoTimestamp(command.at) } }]);
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'UserCreated':
        return { status: 'created', userId: event.data.userId, companyId: event.data.companyId };
      case 'UserErased':
        return { status: 'erased', userId: event.data.userId, companyId: event.data.companyId, erasedAt: event.data.erasedAt };
      default:
        return assertNever(event);
    }
  },
};
