import * as E from 'fp-ts/lib/Either.js';
import { UndecodableEventError } from '../../src/application/handleCommand.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import type { Projection, ReadModelDocument } from '../../src/application/ports/ReadModelStore.js';
import { CONTACT_EVENT_TYPES, ContactEvent } from '../../src/domain/contacts/contactEvents.js';
import { applyContactUpdated, contactFromCreated, type ContactRecord } from '../../src/domain/contacts/contactRecord.js';
import { toContactView, type Contact } from '../../src/domain/contacts/contactView.js';
import type { Position } from '../../src/shared/Position.js';
import { formatValidationErrors } from '../../src/shared/validationReporter.js';
import { CONTACT_SEARCH_FIELDS } from './contactQueries.js';

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
  readonly contact: Contact;
}

/** The response view of a read-model document. */
export const contactOf = (doc: ContactDoc): Contact => doc.contact;

/** Decoded events by stored event: `targets` and `evolve` see the same event, decoded once. */
const decodedEvents = new WeakMap<RecordedEvent, ContactEvent>();

/** Decodes with the codec the events are written with; a refusal means the log and the code disagree. */
const decode = (event: RecordedEvent): ContactEvent => {
  const cached = decodedEvents.get(event);
  if (cached) return cached;
  const candidate = { type: event.type, data: event.data };
  // The event codecs transform nothing, so a value they accept (`is`, ~4× faster
  // than `decode` on a rebuild) is its own decoding; `decode` only explains a refusal.
  if (ContactEvent.is(candidate)) {
    decodedEvents.set(event, candidate);
    return candidate;
  }
  const decoded = ContactEvent.decode(candidate);
  if (E.isLeft(decoded)) throw new UndecodableEventError(event, JSON.stringify(formatValidationErrors(decoded.left)));
  decodedEvents.set(event, decoded.right);
  return decoded.right;
};

const toDoc = (record: ContactRecord, position: Position): ContactDoc => ({
  id: record.id,
  companyId: record.companyId,
  position,
  contact: toContactView(record),
});

const toRecord = (doc: ContactDoc): ContactRecord => ({ ...doc.contact, companyId: doc.companyId });

/**
 * The `contacts` read model: one document per contact, built with the same
 * functions as the aggregate's state (`contactFromCreated`, `applyContactUpdated`)
 * and the same view (`toContactView`) as the command responses, so both agree.
 */
export const contactsProjection: Projection<ContactDoc> = {
  name: 'contacts',
  eventTypes: CONTACT_EVENT_TYPES,
  indexes: [['contact.createdAt'], ['contact.updatedAt']],
  search: CONTACT_SEARCH_FIELDS,
  targets(event) {
    const { data } = decode(event);
    return [{ kind: 'id', companyId: data.companyId, id: data.contactId }];
  },
  evolve(doc, event) {
    const decoded = decode(event);
    switch (decoded.type) {
      case 'ContactCreated':
        return doc ?? toDoc(contactFromCreated(decoded), event.position);
      case 'ContactUpdated':
        return doc && toDoc(applyContactUpdated(toRecord(doc), decoded), event.position);
      default: {
        const unknown: never = decoded;
        return unknown;
      }
    }
  },
};
