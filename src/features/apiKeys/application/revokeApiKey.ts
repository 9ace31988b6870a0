import * as E from 'fp-ts/lib/Either.js';
import { apiKeyDecider } from '../domain/apiKeyDecider.js';
import type { ApiKeyError } from '../domain/apiKeyErrors.js';
import { ApiKeyEvent, apiKeyStream } from '../domain/apiKeyEvents.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';

export interface RevokedApiKey {
  readonly keyId: string;
  readonly companyId: string;
  readonly revokedAt: string;
  readonly position: Position | null;
}

/**
 * Revokes a key; the event's metadata names the key's company, which only the
 * key's stream knows. With `companyId`, a key of another company is not found (a
 * key's company never changes, so looking first cannot race the revocation).
 */
export const revokeApiKey = async (
  deps: CommandDeps,
  input: { readonly keyId: string; readonly companyId?: string; readonly metadata: WriteMetadata },
): Promise<E.Either<ApiKeyError, RevokedApiKey>> => {
  if (input.companyId !== undefined) {
    const { state } = await loadAggregate(deps.eventStore, apiKeyStream(input.keyId), { eventCodec: ApiKeyEvent, decider: apiKeyDecider });
    if (state.status === 'none' || state.companyId !== input.companyId) return E.left({ kind: 'ApiKeyNotFound', keyId: input.keyId });
  }
  const outcome = await handleCommand(deps, {
    decider: apiKeyDecider,
    eventCodec: ApiKeyEvent,
    stream: apiKeyStream(input.keyId),
    command: { type: 'RevokeApiKey', keyId: input.keyId, at: deps.clock.now() },
    metadata: (state) => ({ ...input.metadata, ...(state.status === 'none' ? {} : { companyId: state.companyId }) }),
  });
  if (E.isLeft(outcome)) return outcome;
  const { state } = outcome.right;
  if (state.status !== 'revoked') throw new Error('RevokeApiKey left the key unrevoked');
  return E.right({ keyId: input.keyId, companyId: state.companyId, revokedAt: state.revokedAt, position: outcome.right.position });
};
