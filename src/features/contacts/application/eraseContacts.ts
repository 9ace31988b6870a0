import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import { laterPosition, type Position } from '../../../shared/Position.js';
import { eraseAndForgetContact, type ContactErasureDeps } from './eraseAndForgetContact.js';

/**
 * Erases each of the company's contacts `contactIds` names (those `POST
 * /contacts/erase` matched), one after the other, each as `POST /contacts/:id/erase`
 * erases one (deciding on its own stream), and answers the ids erased, in the
 * order given, with the last position written (null: nothing was written). An id
 * the company's log does not hold is left out.
 */
export const eraseContacts = async (
  deps: ContactErasureDeps,
  input: { companyId: string; contactIds: readonly string[]; metadata: EventMetadata },
): Promise<{ erased: string[]; position: Position | null }> => {
  const { companyId, metadata } = input;
  const erased: string[] = [];
  let last: Position | null = null;
  for (const contactId of input.contactIds) {
    const result = await eraseAndForgetContact(deps, { companyId, contactId, reason: 'requested', metadata });
    if (E.isLeft(result)) continue;
    erased.push(contactId);
    last = laterPosition(last, result.right.position);
  }
  return { erased, position: last };
};
