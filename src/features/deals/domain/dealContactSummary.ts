import type { ContactChanges } from './contactsForDeals.js';
import type { ContactRecord } from './contactsForDeals.js';
import type { DealContactSummary } from './dealEvents.js';

/** The summary a deal embeds of a contact (its stream's current state). */
export const contactSummaryOf = (contact: ContactRecord): DealContactSummary => ({
  id: contact.id,
  name: contact.name,
  email: contact.email,
  phoneNumber: contact.phoneNumber,
  currentCompany: contact.currentCompany,
});

/** True when a `ContactUpdated` with these changes alters a summary. */
export const changesContactSummary = (changes: ContactChanges): boolean =>
  changes.name !== undefined ||
  changes.email !== undefined ||
  changes.phoneNumber !== undefined ||
  changes.currentCompany !== undefined;

/** The summary after a `ContactUpdated` of its contact; the same object when nothing in it changed. */
export const applyContactChanges = (summary: DealContactSummary, changes: ContactChanges): DealContactSummary => {
  const next: DealContactSummary = {
    id: summary.id,
    name: changes.name ?? summary.name,
    email: changes.email !== undefined ? changes.email : summary.email,
    phoneNumber: changes.phoneNumber ?? summary.phoneNumber,
    currentCompany: changes.currentCompany !== undefined ? changes.currentCompany : summary.currentCompany,
  };
  const same =
    next.name === summary.name &&
    next.email === summary.email &&
    next.phoneNumber === summary.phoneNumber &&
    next.currentCompany === summary.currentCompany;
  return same ? summary : next;
};
