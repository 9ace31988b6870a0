import * as E from 'fp-ts/lib/Either.js';
import { adminTokenDecider } from '../../domain/adminTokens/adminTokenDecider.js';
import type { AdminTokenError } from '../../domain/adminTokens/adminTokenErrors.js';
import { AdminTokenEvent, adminTokenStream } from '../../domain/adminTokens/adminTokenEvents.js';
import type { Position } from '../../shared/Position.js';
import type { CommandDeps } from '../commands/CommandDeps.js';
import { handleCommand } from '../commands/handleCommand.js';
import type { WriteMetadata } from '../commands/WriteMetadata.js';

export interface RevokedAdminToken {
  readonly tokenId: string;
  readonly name: string;
  readonly revokedAt: string;
  readonly position: Position | null;
}

/** Revokes an admin token: every API process refuses it from then on (within the revocation bound). */
export const revokeAdminToken = async (
  deps: CommandDeps,
  input: { readonly tokenId: string; readonly metadata: WriteMetadata },
): Promise<E.Either<AdminTokenError, RevokedAdminToken>> => {
  const outcome = await handleCommand(deps, {
    decider: adminTokenDecider,
    eventCodec: AdminTokenEvent,
    stream: adminTokenStream(input.tokenId),
    command: { type: 'RevokeAdminToken', tokenId: input.tokenId, at: deps.clock.now() },
    metadata: input.metadata,
  });
  if (E.isLeft(outcome)) return outcome;
  const { state } = outcome.right;
  if (state.status !== 'revoked') throw new Error('RevokeAdminToken left the token unrevoked');
  return E.right({ tokenId: input.tokenId, name: state.name, revokedAt: state.revokedAt, position: outcome.right.position });
};
