import type { ContactChanges } from './contactsForDeals.js';
import type { ContactRecord } from './contactsForDeals.js';
import type { DealContactSummary, DealContactView } from './dealEvents.js';

/**
 * The summary a deal embeds of a contact (its stream's current state, or the
 * contact a `ContactRestored` carries): an erased contact's fields stay null (see
 * `isLiveContactSummary`).
 */
export const contactSummaryOf = (
  contact: Pick<ContactRecord, 'id' | 'name' | 'email' | 'phoneNumber' | 'currentCompany'>,
): DealContactView => ({
  id: contact.id,
  name: contact.name,
  email: contact.email,
  phoneNumber: contact.phoneNumber,
  currentCompany: contact.currentCompany,
});

/** The summary of a live contact, what a new deal embeds; null for one whose person was erased (no deal is linked to a contact it cannot show). */
export const liveContactSummaryOf = (contact: Pick<ContactRecord, 'id' | 'name' | 'email' | 'phoneNumber' | 'currentCompany'>): DealContactSummary | null => {
  const summary = contactSummaryOf(contact);
  return isLiveContactSummary(summary) ? summary : null;
};

/** What a deal shows of a deleted contact: the link (`id`), and null for every other field. */
export const deletedContactSummary = (contactId: string): DealContactView => ({
  id: contactId,
  name: null,
  email: null,
  phoneNumber: null,
  currentCompany: null,
});

/** True for a live contact's summary; false for a deleted contact's (`deletedContactSummary`), or an erased one's. */
export const isLiveContactSummary = (summary: DealContactView): summary is DealContactSummary =>
  summary.name !== null && summary.phoneNumber !== null;

/** True when a `ContactUpdated` with these changes alters a summary. */
export const changesContactSummary = (changes: ContactChanges): boolean =>
  changes.name !== undefined ||
  changes.email !== undefined ||
  changes.phoneNumber !== undefined ||
  changes.currentCompany !== undefined;

/**
 * The summary after a `ContactUpdated` of its contact (a field it changed takes
 * its new value, null included: cleared, or erased); the same object when nothing
 * in it changed.
 */
export const applyContactChanges = (summary: DealContactView, changes: ContactChanges): DealContactView => {
  const next: DealContactView = {
    id: summary.id,
    name: changes.name !== undefined ? changes.name : summary.name,
    email: changes.email !== undefined ? changes.email : summary.email,
    phoneNumber: changes.phoneNumber !== undefined ? changes.phoneNumber : summary.phoneNumber,
    currentCompany: changes.currentCompany !== undefined ? changes.currentCompany : summary.currentCompany,
  };
  const same =
    next.name === summary.name &&
    next.email === summary.email &&
    next.phoneNumber === summary.phoneNumber &&
    next.currentCompany === summary.currentCompany;
  return same ? summary : next;
};
