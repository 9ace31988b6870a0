import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type { AdminTokenCommand } from './adminTokenCommands.js';
import type { AdminTokenError } from './adminTokenErrors.js';
import type { AdminTokenEvent } from './adminTokenEvents.js';

export type AdminTokenState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly tokenId: string; readonly name: string }
  | { readonly status: 'revoked'; readonly tokenId: string; readonly name: string; readonly revokedAt: string };

/** An admin token: issued once, revoked at most once (a revocation is final). */
export const adminTokenDecider: Decider<AdminTokenCommand, AdminTokenEvent, AdminTokenState, AdminTokenError> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'IssueAdminToken':
        if (state.status !== 'none') return E.left({ kind: 'AdminTokenAlreadyIssued', tokenId: command.tokenId });
        return E.right([
          {
            type: 'AdminTokenIssued',
            data: {
              tokenId: command.tokenId,
              name: command.name,
              tokenHash: command.tokenHash,
              tokenHint: command.tokenHint,
              createdAt: toIsoTimestamp(command.at),
            },
          },
        ]);
      case 'RevokeAdminToken':
        switch (state.status) {
          case 'none':
            return E.left({ kind: 'AdminTokenNotFound', tokenId: command.tokenId });
          case 'revoked':
            return E.left({ kind: 'AdminTokenAlreadyRevoked', tokenId: command.tokenId, revokedAt: state.revokedAt });
          case 'active':
            return E.right([{ type: 'AdminTokenRevoked', data: { tokenId: state.tokenId, revokedAt: toIsoTimestamp(command.at) } }]);
          default:
            return assertNever(state);
        }
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'AdminTokenIssued':
        return { status: 'active', tokenId: event.data.tokenId, name: event.data.name };
      case 'AdminTokenRevoked':
        return state.status === 'none'
          ? state
          : { status: 'revoked', tokenId: state.tokenId, name: state.name, revokedAt: event.data.revokedAt };
      default:
        return assertNever(event);
    }
  },
};
