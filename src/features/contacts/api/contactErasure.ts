import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { StoredResponse } from '../../../application/ports/IdempotencyStore.js';
import type { SubjectEraserOf } from '../../../application/personalData/reapplyErasures.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import { errorBody } from '../../../http/HttpError.js';
import { eraseAndForgetContact } from '../application/eraseAndForgetContact.js';
import { companyOfContact, contactDecider } from '../domain/contactDecider.js';
import { ContactEvent, contactStream } from '../domain/contactEvents.js';
import { contactHttpError } from './contactHttpErrors.js';

/**
 * What an idempotent replay of an erased contact's create answers from then on:
 * as for any unknown contact.
 */
export const goneContactResponse = (erasedAt: Date): StoredResponse => {
  const gone = contactHttpError({ kind: 'ContactNotFound' });
  return { status: gone.status, body: errorBody(gone, erasedAt), headers: {} };
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
    const erased = await eraseAndForgetContact(
      { commands, erasure: deps.erasure, gone: goneContactResponse },
      { companyId, contactId: id, reason: 'requested', metadata },
    );
    if (E.isRight(erased)) return { known: true, position: erased.right.position };
    await deps.erasure.forget(companyId, { kind: 'contact', id }, at, goneContactResponse(at));
    return { known: false, position: null };
  },
});
