import * as E from 'fp-ts/lib/Either.js';
import type { AdminTokenName } from '../domain/AdminTokenName.js';
import { adminTokenDecider } from '../domain/adminTokenDecider.js';
import type { AdminTokenError } from '../domain/adminTokenErrors.js';
import { AdminTokenEvent, adminTokenStream } from '../domain/adminTokenEvents.js';
import { adminTokenHint, generateAdminToken, hashAdminToken } from '../../../shared/adminTokenFormat.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';

export interface IssuedAdminToken {
  readonly tokenId: string;
  /** The token itself: hand it to the caller once; it is stored nowhere. */
  readonly token: string;
  readonly name: string;
  readonly tokenHint: string;
  readonly createdAt: string;
  readonly position: Position | null;
}

/** Generates an admin token and records its hash and hint in a new `admintoken-<id>` stream. */
export const issueAdminToken = async (
  deps: CommandDeps,
  input: { readonly name: AdminTokenName; readonly metadata: WriteMetadata },
): Promise<E.Either<AdminTokenError, IssuedAdminToken>> => {
  const tokenId = deps.newId();
  const token = generateAdminToken();
  const outcome = await handleCommand(deps, {
    decider: adminTokenDecider,
    eventCodec: AdminTokenEvent,
    stream: adminTokenStream(tokenId),
    command: { type: 'IssueAdminToken', tokenId, name: input.name, tokenHash: hashAdminToken(token), tokenHint: adminTokenHint(token), at: deps.clock.now() },
    metadata: input.metadata,
  });
  if (E.isLeft(outcome)) return outcome;
  const issued = outcome.right.events.find((event) => event.type === 'AdminTokenIssued');
  if (!issued || issued.type !== 'AdminTokenIssued') throw new Error('IssueAdminToken recorded no AdminTokenIssued event');
  const { data } = issued;
  return E.right({ tokenId, token, name: data.name, tokenHint: data.tokenHint, createdAt: data.createdAt, position: outcome.right.position });
};
