import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import type { ErasureReason } from '../domain/contactEvents.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { StoredResponse } from '../../../application/ports/IdempotencyStore.js';
import type { PersonErasure } from '../../../application/personalData/PersonErasure.js';
import { eraseContact, type ErasedRecord } from './eraseContact.js';

export interface ContactErasureDeps {
  readonly commands: CommandDeps;
  /** What an erasure does beyond its event: the key destroyed, the kept responses rewritten, the files compacted. */
  readonly erasure: Pick<PersonErasure, 'forget'>;
  /** What an idempotent replay of the contact's create answers once it is erased (as for an unknown contact). */
  readonly gone: (erasedAt: Date) => StoredResponse;
}

/**
 * Erases one contact of the company, whatever asked (`POST /contacts/:id/erase`,
 * `POST /contacts/erase`, the end of a deleted contact's restore period): records
 * `ContactErased` (see `eraseContact`), then has `PersonErasure.forget` destroy
 * its key and rewrite the kept responses, each time, so that an erase sent again
 * finishes one a crash interrupted. The caller waits for the read models
 * (`position`) and compacts once, after all the contacts it erases.
 */
export const eraseAndForgetContact = async (
  deps: ContactErasureDeps,
  input: { companyId: string; contactId: string; reason: ErasureReason; metadata: EventMetadata },
): Promise<E.Either<{ kind: 'ContactNotFound' }, { erased: ErasedRecord; position: Position | null }>> => {
  const result = await eraseContact(deps.commands, input);
  if (E.isLeft(result)) return result;
  const erasedAt = new Date(result.right.erased.erasedAt);
  await deps.erasure.forget(input.companyId, { kind: 'contact', id: input.contactId }, erasedAt, deps.gone(erasedAt));
  return result;
};
