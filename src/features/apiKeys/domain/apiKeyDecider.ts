import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import { EVERY_PERMISSION, type Permission } from '../../../shared/permissions.js';
import type { ApiKeyCommand } from './apiKeyCommands.js';
import type { ApiKeyError } from './apiKeyErrors.js';
import type { ApiKeyEvent } from './apiKeyEvents.js';

export type ApiKeyState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly keyId: string; readonly companyId: string }
  | { readonly status: 'revoked'; readonly keyId: string; readonly companyId: string; readonly revokedAt: string };

/** Each permission once, in the order of every permission a key can hold (the specification's seven, then `contacts:erase`). */
const canonical = (permissions: readonly Permission[]): Permission[] =>
  EVERY_PERMISSION.filter((permission) => permissions.includes(permission));

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState, ApiKeyError> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'IssueApiKey': {
        if (state.status !== 'none') return E.left({ kind: 'ApiKeyAlreadyIssued', keyId: command.keyId });
        const permissions = canonical(command.permissions);
        if (permissions.length === 0) return E.left({ kind: 'NoPermissions' });
        if (command.expiresAt !== null && command.expiresAt.getTime() <= command.at.getTime()) {
          return E.left({ kind: 'ExpiryNotInFuture', expiresAt: toIsoTimestamp(command.expiresAt) });
        }
        return E.right([
          {
            type: 'ApiKeyIssued',
            data: {
              keyId: command.keyId,
              companyId: command.companyId,
              name: command.name,
              type: command.keyType,
              permissions,
              expiresAt: command.expiresAt === null ? null : toIsoTimestamp(command.expiresAt),
              keyHash: command.keyHash,
              keyHint: command.keyHint,
              createdAt: toIsoTimestamp(command.at),
            },
          },
        ]);
      }
      case 'RevokeApiKey':
        switch (state.status) {
          case 'none':
            return E.left({ kind: 'ApiKeyNotFound', keyId: command.keyId });
          case 'revoked':
            return E.left({ kind: 'ApiKeyAlreadyRevoked', keyId: command.keyId, revokedAt: state.revokedAt });
          case 'active':
            return E.right([
              {
                type: 'ApiKeyRevoked',
                data: { keyId: state.keyId, companyId: state.companyId, revokedAt: toIsoTimestamp(command.at) },
              },
            ]);
          default:
            return assertNever(state);
        }
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyIssued':
        return { status: 'active', keyId: event.data.keyId, companyId: event.data.companyId };
      case 'ApiKeyRevoked':
        return { status: 'revoked', keyId: event.data.keyId, companyId: event.data.companyId, revokedAt: event.data.revokedAt };
      default:
        return assertNever(event);
    }
  },
};
