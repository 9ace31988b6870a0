import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { PersonErasure } from '../../../application/personalData/PersonErasure.js';
import type { SubjectEraserOf } from '../../../application/personalData/reapplyErasures.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import { errorBody } from '../../../http/HttpError.js';
import { eraseContact, type ErasedRecord } from '../application/eraseContact.js';
import { companyOfContact, contactDecider } from '../domain/contactDecider.js';
import { ContactEvent, contactStream, type ErasureReason } from '../domain/contactEvents.js';
import { contactHttpError } from './contactHttpErrors.js';

/** What forgets an erased contact: the log it is erased in, and `PersonErasure`. */
export interface ContactErasureDeps {
  readonly commands: CommandDeps;
  readonly erasure: PersonErasure;
}

/** The contact forgotten (`PersonErasure.forget`), erased at `at`: an idempotent replay of its create answers as for an unknown contact. */
const forgetContact = async (erasure: PersonErasure, companyId: string, contactId: string, at: Date): Promise<void> => {
  const gone = contactHttpError({ kind: 'ContactNotFound' });
  await erasure.forget(companyId, { kind: 'contact', id: contactId }, at, { status: gone.status, body: errorBody(gone, at), headers: {} });
};

/**
 * Erasing a contact, whoever asks (`POST /contacts/:id/erase`, re-applying an
 * erasure after a restore): the erasure recorded in its stream (`eraseContact`),
 * then the contact forgotten (`PersonErasure.forget`: the journal, the kept
 * responses, the key), also when it was erased already, so that a retry finishes
 * an erase a crash cut short. What is left to the caller: waiting for the read
 * models to reach `position`, then `PersonErasure.compactNow`.
 */
export const eraseAndForgetContact = async (
  deps: ContactErasureDeps,
  input: { companyId: string; contactId: string; reason: ErasureReason; metadata: EventMetadata },
): Promise<E.Either<{ kind: 'ContactNotFound' }, { erased: ErasedRecord; position: Position | null }>> => {
  const result = await eraseContact(deps.commands, input);
  if (E.isLeft(result)) return result;
  await forgetContact(deps.erasure, input.companyId, input.contactId, new Date(result.right.erased.erasedAt));
  return result;
};

/**
 * Contacts erased again after a restore (`reapplyErasures`): as an erase request,
 * with actor `system`, reason `requested` and the time of the erasure re-applied;
 * a contact this log does not know (made after the backup) is not recorded, but
 * its key, if any, is destroyed all the same.
 */
export const contactEraser: SubjectEraserOf = (deps) => ({
  kind: 'contact',
  companyOf: async (id) => companyOfContact((await loadAggregate(deps.commands.eventStore, contactStream(id), { eventCodec: ContactEvent, decider: contactDecider })).state),
  reapply: async ({ id, companyId, erasedAt }) => {
    const at = new Date(erasedAt);
    const commands: CommandDeps = { ...deps.commands, clock: { now: () => at } };
    const metadata: EventMetadata = { source: 'system', correlationId: deps.commands.newId(), companyId };
    const erased = await eraseAndForgetContact({ commands, erasure: deps.erasure }, { companyId, contactId: id, reason: 'requested', metadata });
    if (E.isRight(erased)) return { known: true, position: erased.right.position };
    await forgetContact(deps.erasure, companyId, id, at);
    return { known: false, position: null };
  },
});
