import * as E from 'fp-ts/lib/Either.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';
import { userDecider, type UserState } from '../domain/userDecider.js';
import { UserEvent, userStream, type UserErased } from '../domain/userEvents.js';

/** What an erase answers: the user's id and when they were erased (the first time, for an erase sent again). */
export interface ErasedUser {
  readonly id: string;
  readonly erasedAt: string;
}

const erasedOf = (userId: string, events: readonly UserEvent[], state: UserState): ErasedUser => {
  const erased = events.find((event): event is UserErased => event.type === 'UserErased');
  if (erased) return { id: userId, erasedAt: erased.data.erasedAt };
  if (state.status === 'erased') return { id: userId, erasedAt: state.erasedAt };
  throw new Error(`User ${userId} was not erased`);
};

/**
 * Records the erasure of a user of the company (`UserErased`). Erasing one erased
 * already appends nothing and answers when they were erased. Another company's
 * user, or none: not found. What makes their values unreadable (the key, the kept
 * responses) follows in `PersonErasure.forget`, which the caller runs whether or
 * not this appended anything, so that a retry finishes an erase a crash interrupted.
 */
export const eraseUser = async (
  deps: CommandDeps,
  input: { readonly companyId: string; readonly userId: string; readonly metadata: WriteMetadata },
): Promise<E.Either<{ readonly kind: 'UserNotFound'; readonly userId: string }, { erased: ErasedUser; position: Position | null }>> => {
  const { companyId, userId, metadata } = input;
  const outcome = await handleCommand(deps, {
    decider: userDecider,
    eventCodec: UserEvent,
    stream: userStream(userId),
    command: { type: 'EraseUser', userId, companyId, at: deps.clock.now() },
    metadata: { ...metadata, companyId },
  });
  if (E.isLeft(outcome)) return E.left({ kind: 'UserNotFound', userId });
  const { events, state, position } = outcome.right;
  return E.right({ erased: erasedOf(userId, events, state), position });
};
