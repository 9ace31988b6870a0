import { contactAggregate } from '../application/contactsForDeals.js';
import { dealAggregate } from '../application/dealAggregate.js';
import type { LogFolds } from '../../../application/verify/logFolds.js';
import type { ContactState } from '../domain/contactsForDeals.js';
import { companyOfContact, contactStream } from '../domain/contactsForDeals.js';
import { contactSummaryOf, deletedContactSummary } from '../domain/dealContactSummary.js';
import type { DealState } from '../domain/dealDecider.js';
import type { DealContactView } from '../domain/dealEvents.js';
import { toDealView } from '../domain/dealView.js';
import { check, expectedFrom, observedAt } from '../../../application/verify/verifyCheck.js';
import { dealsProjection, type DealDoc } from './dealsProjection.js';

/**
 * The contact summary a deal shows: the deal's read model starts from the
 * snapshot taken at creation (or restore) and follows the contact's
 * `ContactUpdated`, `ContactDeleted`, `ContactRestored` and `ContactErased`
 * events, so it must equal the contact's stream as it is now: its summary, or for
 * a deleted or erased contact its id and nulls.
 */
const currentSummary = (folds: LogFolds, companyId: string, summary: DealContactView): DealContactView => {
  const contact = folds.stateOf<ContactState>(contactAggregate.fold, contactStream(summary.id));
  if (!contact || companyOfContact(contact) !== companyId) return summary;
  return contact.status === 'active' ? contactSummaryOf(contact.contact) : deletedContactSummary(summary.id);
};

/**
 * Every deal's stream has its document (but a deleted deal's: none), with the deal
 * as its stream folds it and its contact as the contact is now.
 */
export const dealsCheck = check<DealDoc>({
  projection: dealsProjection,
  folds: [dealAggregate.fold, contactAggregate.fold],
  expected: (folds) =>
    expectedFrom<DealState>(folds, dealAggregate.fold, (state) => {
      if (state.status !== 'active') return null;
      const { deal } = state;
      const view = toDealView(deal);
      const contact = deal.contact && currentSummary(folds, deal.companyId, deal.contact);
      return { companyId: deal.companyId, id: deal.id, fields: { companyId: deal.companyId, ...view, contact } };
    }),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, ...doc.deal }),
});
