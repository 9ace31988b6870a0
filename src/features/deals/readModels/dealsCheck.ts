import { contactAggregate } from '../application/contactsForDeals.js';
import { dealAggregate } from '../application/dealAggregate.js';
import type { LogFolds } from '../../../application/verify/logFolds.js';
import type { ContactState } from '../domain/contactsForDeals.js';
import { contactStream } from '../domain/contactsForDeals.js';
import { contactSummaryOf } from '../domain/dealContactSummary.js';
import type { DealState } from '../domain/dealDecider.js';
import type { DealContactSummary } from '../domain/dealEvents.js';
import { toDealView } from '../domain/dealView.js';
import { check, expectedFrom, observedAt } from '../../../application/verify/verifyCheck.js';
import { dealsProjection, type DealDoc } from './dealsProjection.js';

/**
 * The contact summary a deal shows: the deal's read model starts from the
 * snapshot taken at creation and follows the contact's `ContactUpdated` events,
 * so it must equal the contact's stream as it is now.
 */
const currentSummary = (folds: LogFolds, companyId: string, summary: DealContactSummary): DealContactSummary => {
  const contact = folds.stateOf<ContactState>(contactAggregate.fold, contactStream(summary.id));
  return contact?.status === 'active' && contact.contact.companyId === companyId ? contactSummaryOf(contact.contact) : summary;
};

/** Every deal's stream has its document, with the deal as its stream folds it and its contact as the contact is now. */
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
