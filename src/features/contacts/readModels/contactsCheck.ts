import { contactAggregate } from '../application/contactAggregate.js';
import type { ContactState } from '../domain/contactDecider.js';
import { toContactView } from '../domain/contactRecord.js';
import { isLiveContact } from '../domain/contactView.js';
import { check, expectedFrom, observedAt } from '../../../application/verify/verifyCheck.js';
import { contactsProjection, type ContactDoc } from './contactsProjection.js';

/**
 * Every active contact's stream has its document, with the contact as its stream
 * folds it; but one whose person was erased (its fields null), which has none.
 */
export const contactsCheck = check<ContactDoc>({
  projection: contactsProjection,
  folds: [contactAggregate.fold],
  expected: (folds) =>
    expectedFrom<ContactState>(folds, contactAggregate.fold, (state) =>
      state.status === 'active' && isLiveContact(state.contact)
        ? { companyId: state.contact.companyId, id: state.contact.id, fields: { companyId: state.contact.companyId, ...toContactView(state.contact) } }
        : null,
    ),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, ...doc.contact }),
});
