import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type { UserCommand } from './userCommands.js';
import type { UserError } from './userErrors.js';
import type { UserEvent } from './userEvents.js';

export type UserState =
  | { readonly status: 'none' }
  | { readonly status: 'created'; readonly userId: string; readonly companyId: string };

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
      default:
        return assertNever(command.type);
    }
  },
  evolve(_state, event) {
    switch (event.type) {
      case 'UserCreated':
        return { status: 'created', userId: event.data.userId, companyId: event.data.companyId };
      default:
        return assertNever(event.type);
    }
  },
};
