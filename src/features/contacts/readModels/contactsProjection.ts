import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import type { RecordedEvent } from '../../../application/ports/EventStore.js';
import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { CONTACT_EVENT_TYPES, ContactEvent } from '../domain/contactEvents.js';
import { applyContactUpdated, contactFromCreated, toContactView, type ContactRecord } from '../domain/contactRecord.js';
import { isLiveContact, type Contact } from '../domain/contactView.js';
import type { Position } from '../../../shared/Position.js';
import { CONTACT_SEARCH_FIELDS } from './contactQueries.js';
import { erasedWithCompany } from '../../companies/index.js';

/**
 * A contact in the read model. The response view is nested under `contact`
 * because a contact has a field `position` (job title) and every read-model
 * document has a `position` of its own (the log position of the last event
 * applied, for idempotency). `contactOf(doc)` is what GET responses return.
 */
export interface ContactDoc extends ReadModelDocument {
  readonly id: string;
  readonly companyId: string;
  readonly position: Position;
  /**
   * Revision of the contact's stream at the last event applied: with `position`,
   * the ETag of GET /contacts/:id, and what `If-Match` carries to the append.
   * Absent in documents projected before it existed (MongoDB, until replayed).
   */
  readonly revision?: number;
  readonly contact: Contact;
}

/** The response view of a read-model document. */
export const contactOf = (doc: ContactDoc): Contact => doc.contact;

/** Decoded once per stored event: `targets` and `evolve` see the same event. */
const decode = cachedDecoder(ContactEvent);

/** The document of a live contact; none for one whose person was erased (the API does not show it). */
const toDoc = (record: ContactRecord, event: RecordedEvent): ContactDoc | null =>
  isLiveContact(record)
    ? { id: record.id, companyId: record.companyId, position: event.position, revision: event.revision, contact: toContactView(record) }
    : null;

const toRecord = (doc: ContactDoc): ContactRecord => ({ ...doc.contact, companyId: doc.companyId });

/**
 * The `contacts` read model: one document per contact, built with the same
 * functions as the aggregate's state (`contactFromCreated`, `applyContactUpdated`)
 * and the same view (`toContactView`) as the command responses, so both agree.
 * A deleted or erased contact has no document; a restored one has it back.
 *
 * Its documents are what the API answers (GET answers the stored view as it is),
 * so it holds live contacts only: a contact whose personal fields read as null
 * (its person erased) has no document, as a deleted one has none, and an event
 * whose contact reads so takes the document away.
 */
export const contactsProjection: Projection<ContactDoc> = erasedWithCompany({
  name: 'contacts',
  eventTypes: CONTACT_EVENT_TYPES,
  indexes: [['contact.createdAt'], ['contact.updatedAt']],
  search: CONTACT_SEARCH_FIELDS,
  view: 'contact',
  targets(event) {
    const { data } = decode(event);
    return [{ kind: 'id', companyId: data.companyId, id: data.contactId }];
  },
  creates: (event) => event.type === 'ContactCreated',
  evolve(doc, event) {
    const decoded = decode(event);
    switch (decoded.type) {
      case 'ContactCreated':
        return doc ?? toDoc(contactFromCreated(decoded), event);
      case 'ContactUpdated':
        return doc && toDoc(applyContactUpdated(toRecord(doc), decoded), event);
      // A deleted contact leaves the read model (every list, search and GET); restored, it comes back
      // from the contact its event carries. It is then created anew: lists show it after the contacts
      // created before its restore.
      case 'ContactDeleted':
        return null;
      case 'ContactRestored':
        return doc ?? toDoc({ ...decoded.data.contact, companyId: decoded.data.companyId }, event);
      // Erased: gone for good, its document with it.
      case 'ContactErased':
        return null;
      default: {
        const unknown: never = decoded;
        return unknown;
      }
    }
  },
});
