import * as t from 'io-ts';
import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import type { RecordedEvent } from '../../../application/ports/EventStore.js';
import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { ContactDeleted, ContactErased, ContactRestored, ContactUpdated } from '../domain/contactsForDeals.js';
import { UserErased } from '../domain/usersForDeals.js';
import {
  applyContactChanges,
  changesContactSummary,
  contactSummaryOf,
  deletedContactSummary,
  isLiveContactSummary,
} from '../domain/dealContactSummary.js';
import {
  DEAL_EVENT_TYPES,
  DealContactRefreshed,
  DealCreated,
  DealDeleted,
  DealRestored,
  DealStatusChanged,
  type DealContactView,
} from '../domain/dealEvents.js';
import { applyDealStatusChanged, dealFromCreated, type DealRecord } from '../domain/dealRecord.js';
import { toDealView, type Deal } from '../domain/dealView.js';
import type { Position } from '../../../shared/Position.js';
import { erasedWithCompany } from '../../companies/index.js';
import { DEAL_SEARCH_FIELDS } from './dealQueries.js';

/**
 * A deal in the read model. The response view is nested under `deal` (as
 * contacts are) so that no field of a deal can clash with the document's own
 * `id`, `companyId` and `position` (the log position of the last event applied,
 * for idempotency). `dealOf(doc)` is what GET responses return.
 */
export interface DealDoc extends ReadModelDocument {
  readonly id: string;
  readonly companyId: string;
  readonly position: Position;
  /**
   * Revision of the deal's own stream at its last deal event applied. A contact
   * change that shows in the embedded summary moves `position` but not this: the
   * ETag of GET /deals/:id is both (it changes whenever the representation
   * does), and `If-Match` guards this revision, the deal's own fields. Absent in
   * documents projected before it existed (MongoDB, until replayed).
   */
  readonly revision?: number;
  readonly deal: Deal;
}

/** The response view of a read-model document. */
export const dealOf = (doc: DealDoc): Deal => doc.deal;

/** The events this read model folds: the deal's own, and contact changes that show in embedded summaries. */
const DealsProjectionEvent = t.union([
  DealCreated,
  DealStatusChanged,
  DealContactRefreshed,
  DealDeleted,
  DealRestored,
  ContactUpdated,
  ContactDeleted,
  ContactRestored,
  ContactErased,
  UserErased,
]);
type DealsProjectionEvent = t.TypeOf<typeof DealsProjectionEvent>;

/** Decoded once per stored event: `targets` and `evolve` see the same event. */
const decode = cachedDecoder(DealsProjectionEvent);

const toDoc = (record: DealRecord, event: RecordedEvent): DealDoc => ({
  id: record.id,
  companyId: record.companyId,
  position: event.position,
  revision: event.revision,
  deal: toDealView(record),
});

const toRecord = (doc: DealDoc): DealRecord => ({ ...doc.deal, companyId: doc.companyId });

/**
 * The document with its contact shown as `contact` (a contact event at `event`),
 * when the deal embeds that contact of its company; the same document otherwise.
 * The deal's `revision` stays: its own stream did not move.
 */
const withContact = (doc: DealDoc | null, companyId: string, contact: DealContactView, event: RecordedEvent): DealDoc | null => {
  const summary = doc?.deal.contact;
  if (!doc || !summary || summary.id !== contact.id || doc.companyId !== companyId) return doc;
  const same = (Object.keys(contact) as (keyof DealContactView)[]).every((key) => summary[key] === contact[key]);
  return same ? doc : { ...doc, position: event.position, deal: { ...doc.deal, contact } };
};

/** The document with no assigned user, when the deal is assigned to that user of its company (a `UserErased` at `event`). */
const withoutUser = (doc: DealDoc | null, companyId: string, userId: string, event: RecordedEvent): DealDoc | null => {
  if (!doc || doc.companyId !== companyId || doc.deal.assignedTo?.id !== userId) return doc;
  return { ...doc, position: event.position, deal: { ...doc.deal, assignedTo: null } };
};

/**
 * The `deals` read model: one document per deal, built with the same functions
 * as the aggregate's state (`dealFromCreated`, `applyDealStatusChanged`) and the
 * same view (`toDealView`) as the command responses, so both agree.
 *
 * A `ContactUpdated` that changes a contact's name, email, phoneNumber or
 * currentCompany updates the summary in every deal of that company that embeds
 * the contact (a where-target on `deal.contact.id`); the deal's `updatedAt` stays,
 * since the deal itself did not change. A `ContactDeleted` keeps the link but
 * shows every other field of the summary as null (`deletedContactSummary`); a
 * `ContactRestored` shows the contact again, from the contact it carries. A
 * `ContactErased` shows it as a deleted one's, for good. A `UserErased` shows
 * every deal assigned to that user as assigned to no one (`assignedTo: null`, as
 * the view shows an erased user), found by the user's id (a where-target on
 * `deal.assignedTo.id`); the deal's `updatedAt` and `revision` stay.
 *
 * A deleted deal has no document (it leaves every list and total); a restored
 * one has it back, from the deal its `DealRestored` carries.
 *
 * Searched (the console's search, `DEAL_SEARCH_FIELDS`): the title and the
 * contact's name, e-mail and phone number, as the document shows them now (a
 * deleted or erased contact's nulls match nothing).
 */
export const dealsProjection: Projection<DealDoc> = erasedWithCompany({
  name: 'deals',
  eventTypes: new Set([...DEAL_EVENT_TYPES, 'ContactUpdated', 'ContactDeleted', 'ContactRestored', 'ContactErased', 'UserErased']),
  indexes: [
    ['deal.status'],
    ['deal.stage'],
    ['deal.status', 'deal.stage'],
    ['deal.contact.id'],
    ['deal.assignedTo.id'],
    ['deal.createdAt'],
    ['deal.updatedAt'],
  ],
  totals: [['deal.status'], ['deal.stage'], ['deal.status', 'deal.stage']],
  search: DEAL_SEARCH_FIELDS,
  view: 'deal',
  targets(event) {
    const decoded = decode(event);
    switch (decoded.type) {
      case 'DealCreated':
      case 'DealStatusChanged':
      case 'DealContactRefreshed':
      case 'DealDeleted':
      case 'DealRestored':
        return [{ kind: 'id', companyId: decoded.data.companyId, id: decoded.data.dealId }];
      case 'ContactUpdated':
        return changesContactSummary(decoded.data.changes)
          ? [{ kind: 'where', companyId: decoded.data.companyId, field: 'deal.contact.id', value: decoded.data.contactId }]
          : [];
      case 'ContactDeleted':
      case 'ContactRestored':
      case 'ContactErased':
        return [{ kind: 'where', companyId: decoded.data.companyId, field: 'deal.contact.id', value: decoded.data.contactId }];
      case 'UserErased':
        return [{ kind: 'where', companyId: decoded.data.companyId, field: 'deal.assignedTo.id', value: decoded.data.userId }];
      default: {
        const unknown: never = decoded;
        return unknown;
      }
    }
  },
  evolve(doc, event) {
    const decoded = decode(event);
    switch (decoded.type) {
      case 'DealCreated':
        return doc ?? toDoc(dealFromCreated(decoded), event);
      case 'DealStatusChanged':
        return doc && toDoc(applyDealStatusChanged(toRecord(doc), decoded), event);
      case 'DealContactRefreshed': {
        // A ContactUpdated after the refresh may already be applied only if it came later in the log, and the
        // runner applies in log order: the refreshed summary is the newest this document has seen.
        const { contact } = decoded.data;
        if (!doc || doc.deal.contact?.id !== contact.id) return doc;
        return { ...doc, position: event.position, revision: event.revision, deal: { ...doc.deal, contact } };
      }
      case 'ContactUpdated': {
        const summary = doc?.deal.contact;
        if (!doc || !summary || summary.id !== decoded.data.contactId || doc.companyId !== decoded.data.companyId) return doc;
        // A deleted contact is not updated; its summary changes only when it is restored.
        if (!isLiveContactSummary(summary)) return doc;
        const contact = applyContactChanges(summary, decoded.data.changes);
        return contact === summary ? doc : { ...doc, position: event.position, deal: { ...doc.deal, contact } };
      }
      case 'ContactDeleted':
      case 'ContactErased':
        return withContact(doc, decoded.data.companyId, deletedContactSummary(decoded.data.contactId), event);
      case 'ContactRestored':
        return withContact(doc, decoded.data.companyId, contactSummaryOf(decoded.data.contact), event);
      case 'UserErased':
        return withoutUser(doc, decoded.data.companyId, decoded.data.userId, event);
      // A deleted deal leaves the read model (every list, filter, total and GET); restored, it comes back
      // from the deal its event carries. It is then created anew: lists show it after the deals created
      // before its restore.
      case 'DealDeleted':
        return null;
      case 'DealRestored':
        return doc ?? toDoc({ ...decoded.data.deal, companyId: decoded.data.companyId }, event);
      default: {
        const unknown: never = decoded;
        return unknown;
      }
    }
  },
});
