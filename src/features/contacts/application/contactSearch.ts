import type { ReadModelStore } from '../../../application/ports/ReadModelStore.js';

/** A contact a search found, as the console lists it. */
export interface ContactMatch {
  readonly id: string;
  readonly name: string;
  readonly email: string | null;
  readonly phoneNumber: string;
  readonly currentCompany: string | null;
  readonly createdAt: string;
}

/** Up to `limit` matches, newest first, and how many there are in all. */
export interface ContactMatches {
  readonly items: readonly ContactMatch[];
  readonly total: number;
}

/**
 * What the console's search asks of the contacts: a company's live contacts
 * (deleted and erased ones are not in the read model) whose name, e-mail or
 * phone number holds `text`, exactly as `GET /contacts?search=` matches them.
 */
export interface ContactSearch {
  readonly contactsMatching: (query: { readonly companyId: string; readonly text: string; readonly limit: number }) => Promise<ContactMatches>;
}

/** The search over a store's read models, as the feature's index binds it (`contactSearchOf`). */
export type ContactSearchOf = (readModels: Pick<ReadModelStore, 'collection'>) => ContactSearch;
