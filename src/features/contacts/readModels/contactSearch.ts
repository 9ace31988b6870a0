import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { ContactSearch } from '../application/contactSearch.js';
import { contactListQuery } from './contactQueries.js';
import { contactOf, type ContactDoc } from './contactsProjection.js';

/** The contacts' search over the `contacts` read model: `GET /contacts?search=`'s query, newest first. */
export const contactSearch = (contacts: DocumentCollection<ContactDoc>): ContactSearch => ({
  contactsMatching: async ({ companyId, text, limit }) => {
    // A blank text would match every contact: the search asks for something.
    if (text.trim() === '') return { items: [], total: 0 };
    const page = await contacts.list({ ...contactListQuery({ companyId, search: text, page: 1, limit }), order: 'desc' });
    return {
      total: page.total,
      items: page.items.map((doc) => {
        const contact = contactOf(doc);
        return {
          id: contact.id,
          name: contact.name,
          email: contact.email,
          phoneNumber: contact.phoneNumber,
          currentCompany: contact.currentCompany,
          createdAt: contact.createdAt,
        };
      }),
    };
  },
});
