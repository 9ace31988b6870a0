/**
 * What deals' domain knows of contacts, in one place: a deal embeds a summary of
 * its contact and keeps it current from the contact's stream. Everything of deals
 * that needs contacts imports them from here (or from `application/contactsForDeals.ts`),
 * so the coupling between the two features reads in two files.
 */
export { ContactEvent, ContactUpdated, contactDecider, contactStream } from '../../contacts/index.js';
export type { ContactChanges, ContactRecord, ContactState } from '../../contacts/index.js';
