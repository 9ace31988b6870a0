import * as E from 'fp-ts/lib/Either.js';
import type { CompanyNotFound } from '../../companies/index.js';
import type { Email } from '../domain/Email.js';
import type { UserName } from '../domain/UserName.js';
import { userDecider } from '../domain/userDecider.js';
import type { UserError } from '../domain/userErrors.js';
import { UserEvent, userStream } from '../domain/userEvents.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { loadCompany } from '../../companies/index.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';

export interface CreatedUser {
  readonly id: string;
  readonly companyId: string;
  readonly name: string;
  readonly email: string;
  readonly createdAt: string;
  readonly position: Position | null;
}

/** Creates a user with a new id in an existing company. */
export const createUser = async (
  deps: CommandDeps,
  input: { readonly companyId: string; readonly name: UserName; readonly email: Email; readonly metadata: WriteMetadata },
): Promise<E.Either<Extract<UserError, { kind: 'UserAlreadyExists' }> | CompanyNotFound, CreatedUser>> => {
  const { companyId } = input;
  if ((await loadCompany(deps.eventStore, companyId)) === null) return E.left({ kind: 'CompanyNotFound', companyId });
  const userId = deps.newId();
  const outcome = await handleCommand(deps, {
    decider: userDecider,
    eventCodec: UserEvent,
    stream: userStream(userId),
    command: { type: 'CreateUser', userId, companyId, name: input.name, email: input.email, at: deps.clock.now() },
    metadata: { ...input.metadata, companyId },
  });
  if (E.isLeft(outcome)) {
    if (outcome.left.kind !== 'UserAlreadyExists') throw new Error(`CreateUser refused: ${outcome.left.kind}`);
    return E.left(outcome.left);
  }
  const [created] = outcome.right.events;
  if (created?.type !== 'UserCreated') throw new Error('CreateUser recorded no UserCreated');
  const { data } = created;
  // The user as the command made it: its name and e-mail are the command's.
  return E.right({ id: data.userId, companyId: data.companyId, name: input.name, email: input.email, createdAt: data.createdAt, position: outcome.right.position });
};
