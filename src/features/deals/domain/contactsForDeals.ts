/**
 * What deals' domain knows of contacts, in one place: a deal embeds a summary of
 * its contact and keeps it current from the contact's stream (a deleted contact
 * shows as its id and nulls until it is restored; an erased one, for good). Everything of deals
 * that needs contacts imports them from here (or from `application/contactsForDeals.ts`),
 * so the coupling between the two features reads in two files.
 */
export { ContactDeleted, ContactErased, ContactEvent, ContactRestored, ContactUpdated, companyOfContact, contactDecider, contactStream } from '../../contacts/index.js';
export type { ContactChanges, ContactRecord, ContactState } from '../../contacts/index.js';
