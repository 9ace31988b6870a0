import * as E from 'fp-ts/lib/Either.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';
import type { PersonErasure } from '../../../application/personalData/PersonErasure.js';
import type { SubjectEraserOf } from '../../../application/personalData/reapplyErasures.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import { HttpError, errorBody } from '../../../http/HttpError.js';
import { eraseUser, type ErasedUser } from '../application/eraseUser.js';
import { userDecider } from '../domain/userDecider.js';
import { UserEvent, userStream } from '../domain/userEvents.js';

/** An unknown user, or another company's: what the admin API answers, and an erased user's create replayed. */
export const userNotFound = (): HttpError => new HttpError(404, 'User not found', 'No user with this id exists in this company.');

/** What forgets an erased user: the log they are erased in, and `PersonErasure`. */
export interface UserErasureDeps {
  readonly commands: CommandDeps;
  readonly erasure: PersonErasure;
}

/** The user forgotten (`PersonErasure.forget`), erased at `at`: an idempotent replay of their create answers as for an unknown user. */
const forgetUser = async (erasure: PersonErasure, companyId: string, userId: string, at: Date): Promise<void> => {
  const gone = userNotFound();
  await erasure.forget(companyId, { kind: 'user', id: userId }, at, { status: gone.status, body: errorBody(gone, at), headers: {} });
};

/**
 * Erasing a user, whoever asks (`POST /admin/companies/:id/users/:userId/erase`,
 * re-applying an erasure after a restore): `UserErased` in their stream, then the
 * user forgotten, also when they were erased already, so that a retry finishes an
 * erase a crash cut short. Left to the caller: waiting for the read models to reach
 * `position`, then `PersonErasure.compactNow`.
 */
export const eraseAndForgetUser = async (
  deps: UserErasureDeps,
  input: { readonly companyId: string; readonly userId: string; readonly metadata: WriteMetadata },
): Promise<E.Either<{ readonly kind: 'UserNotFound'; readonly userId: string }, { erased: ErasedUser; position: Position | null }>> => {
  const result = await eraseUser(deps.commands, input);
  if (E.isLeft(result)) return result;
  await forgetUser(deps.erasure, input.companyId, input.userId, new Date(result.right.erased.erasedAt));
  return result;
};

/**
 * Users erased again after a restore (`reapplyErasures`): as the admin API's erase,
 * with actor `system` and the time of the erasure re-applied; a user this log does
 * not know (made after the backup) is not recorded, but their key, if any, is
 * destroyed all the same.
 */
export const userEraser: SubjectEraserOf = (deps) => ({
  kind: 'user',
  companyOf: async (id) => {
    const { state } = await loadAggregate(deps.commands.eventStore, userStream(id), { eventCodec: UserEvent, decider: userDecider });
    return state.status === 'none' ? null : state.companyId;
  },
  reapply: async ({ id, companyId, erasedAt }) => {
    const at = new Date(erasedAt);
    const commands: CommandDeps = { ...deps.commands, clock: { now: () => at } };
    const metadata: WriteMetadata = { source: 'system', correlationId: deps.commands.newId() };
    const erased = await eraseAndForgetUser({ commands, erasure: deps.erasure }, { companyId, userId: id, metadata });
    if (E.isRight(erased)) return { known: true, position: erased.right.position };
    await forgetUser(deps.erasure, companyId, id, at);
    return { known: false, position: null };
  },
});
