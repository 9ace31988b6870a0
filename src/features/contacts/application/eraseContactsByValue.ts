import * as E from 'fp-ts/lib/Either.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import { comparePositions, type Position } from '../../../shared/Position.js';
import type { DocumentCollection, Filter } from '../../../application/ports/ReadModelStore.js';
import { emailMatchKey, type ContactMatch } from '../domain/contactInput.js';
import type { ContactValuesDoc } from '../readModels/contactValuesProjection.js';
import { eraseAndForgetContact, type ContactErasureDeps } from './eraseAndForgetContact.js';

/** How many matching contacts are read at a time. */
const PAGE_SIZE = 100;

/** The filter of the `contact_values` documents that match: the e-mail lower-cased, the number normalised (as validated). */
const filterOf = (match: ContactMatch): Filter =>
  'email' in match ? { op: 'eq', field: 'email', value: emailMatchKey(match.email) } : { op: 'eq', field: 'phoneNumber', value: match.phoneNumber };

/** The ids of every contact of the company, live or deleted, that `match` names. */
export const contactsMatching = async (
  values: Pick<DocumentCollection<ContactValuesDoc>, 'list'>,
  companyId: string,
  match: ContactMatch,
): Promise<string[]> => {
  const ids: string[] = [];
  const filters = [filterOf(match)];
  for (let page = 1; ; page++) {
    const found = await values.list({ companyId, filters, page, limit: PAGE_SIZE, order: 'asc', withTotal: false });
    ids.push(...found.items.map((doc) => doc.id));
    if (found.items.length < PAGE_SIZE) return ids;
  }
};

/**
 * Erases every contact of the company, live or deleted, whose e-mail address
 * (compared case-insensitively) or phone number (normalised) is `match`, each as
 * `POST /contacts/:id/erase` erases one, and answers their ids, in the order they
 * were created, with the last position written (null: nothing was written). A
 * contact erased meanwhile by another request is skipped.
 */
export const eraseContactsByValue = async (
  deps: ContactErasureDeps & { readonly values: Pick<DocumentCollection<ContactValuesDoc>, 'list'> },
  input: { companyId: string; match: ContactMatch; metadata: EventMetadata },
): Promise<{ erased: string[]; position: Position | null }> => {
  const { companyId, metadata } = input;
  const erased: string[] = [];
  let last: Position | null = null;
  for (const contactId of await contactsMatching(deps.values, companyId, input.match)) {
    const result = await eraseAndForgetContact(deps, { companyId, contactId, reason: 'requested', metadata });
    if (E.isLeft(result)) continue;
    erased.push(contactId);
    const { position } = result.right;
    if (position !== null && (last === null || comparePositions(position, last) > 0)) last = position;
  }
  return { erased, position: last };
};
