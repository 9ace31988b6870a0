import type { DocumentCollection, Filter } from '../../../application/ports/ReadModelStore.js';
import { emailMatchKey, type ContactMatch } from '../domain/contactInput.js';
import type { ContactValuesDoc } from './contactValuesProjection.js';

/** How many matching contacts are read at a time. */
const PAGE_SIZE = 100;

/** The filter of the `contact_values` documents that match: the e-mail lower-cased, the number normalised (as validated). */
const filterOf = (match: ContactMatch): Filter =>
  'email' in match ? { op: 'eq', field: 'email', value: emailMatchKey(match.email) } : { op: 'eq', field: 'phoneNumber', value: match.phoneNumber };

/** The ids of every contact of the company, live or deleted, that `match` names, in the order they were created. */
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
