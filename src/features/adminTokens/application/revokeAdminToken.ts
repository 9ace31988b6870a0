import * as E from 'fp-ts/lib/Either.js';
import { adminTokenDecider } from '../domain/adminTokenDecider.js';
import type { AdminTokenError } from '../domain/adminTokenErrors.js';
import { AdminTokenEvent, adminTokenStream } from '../domain/adminTokenEvents.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { ConsoleSessionStore } from '../../../application/ports/ConsoleSessionStore.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';

export interface RevokedAdminToken {
  readonly tokenId: string;
  readonly name: string;
  readonly revokedAt: string;
  readonly position: Position | null;
  /** The console sessions its links had opened, ended with it. */
  readonly endedConsoleSessions: number;
}

/**
 * Revokes an admin token: every API process refuses it from then on (within the
 * revocation bound), and every console session opened by one of its links ends
 * at once. Revoking it again ends those sessions again (a revocation whose
 * sessions were not ended, the process stopped in between, is finished by
 * asking again) and answers that it was already revoked.
 */
export const revokeAdminToken = async (
  deps: CommandDeps & { readonly sessions: Pick<ConsoleSessionStore, 'endAll'> },
  input: { readonly tokenId: string; readonly metadata: WriteMetadata },
): Promise<E.Either<AdminTokenError, RevokedAdminToken>> => {
  const outcome = await handleCommand(deps, {
    decider: adminTokenDecider,
    eventCodec: AdminTokenEvent,
    stream: adminTokenStream(input.tokenId),
    command: { type: 'RevokeAdminToken', tokenId: input.tokenId, at: deps.clock.now() },
    metadata: input.metadata,
  });
  if (E.isLeft(outcome)) {
    if (outcome.left.kind === 'AdminTokenAlreadyRevoked') await deps.sessions.endAll({ adminTokenId: input.tokenId });
    return outcome;
  }
  const { state } = outcome.right;
  if (state.status !== 'revoked') throw new Error('RevokeAdminToken left the token unrevoked');
  const endedConsoleSessions = await deps.sessions.endAll({ adminTokenId: input.tokenId });
  return E.right({ tokenId: input.tokenId, name: state.name, revokedAt: state.revokedAt, position: outcome.right.position, endedConsoleSessions });
};
