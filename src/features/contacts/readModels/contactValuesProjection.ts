import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import type { RecordedEvent } from '../../../application/ports/EventStore.js';
import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { CONTACT_EVENT_TYPES, ContactEvent } from '../domain/contactEvents.js';
import { emailMatchKey } from '../domain/contactInput.js';
import { erasedWithCompany } from '../../companies/index.js';

/**
 * A contact of a company, live or deleted, by the values it is erased by: its
 * e-mail address (lower-cased) and its phone number (normalised, as stored).
 * `deletedAt` and `restorableUntil` are null while the contact is live.
 */
export interface ContactValuesDoc extends ReadModelDocument {
  readonly email: string | null;
  readonly phoneNumber: string | null;
  readonly deletedAt: string | null;
  readonly restorableUntil: string | null;
}

const decode = cachedDecoder(ContactEvent);

const valuesOf = (contact: { readonly email?: string | null; readonly phoneNumber: string | null }) => ({
  email: contact.email === undefined || contact.email === null ? null : emailMatchKey(contact.email),
  phoneNumber: contact.phoneNumber,
});

const docOf = (
  event: RecordedEvent,
  ids: { readonly contactId: string; readonly companyId: string },
  values: ReturnType<typeof valuesOf>,
): ContactValuesDoc | null =>
  // A contact whose values read as null (its person erased, the log replayed) is matched by nothing: no document.
  values.email === null && values.phoneNumber === null
    ? null
    : { id: ids.contactId, companyId: ids.companyId, position: event.position, ...values, deletedAt: null, restorableUntil: null };

/**
 * `contact_values`: every contact of a company that is not erased, live or
 * deleted, with its e-mail address and phone number as `POST /contacts/erase`
 * matches them. The `contacts` read model drops a contact when it is deleted, and
 * its `ContactDeleted` carries no value, so this one keeps the values from the
 * contact's own events and marks the document deleted; a restore clears the mark,
 * an erasure deletes the document (and with it the values).
 */
export const contactValuesProjection: Projection<ContactValuesDoc> = erasedWithCompany({
  name: 'contact_values',
  eventTypes: CONTACT_EVENT_TYPES,
  indexes: [['email'], ['phoneNumber']],
  targets(event) {
    const { data } = decode(event);
    return [{ kind: 'id', companyId: data.companyId, id: data.contactId }];
  },
  creates: (event) => event.type === 'ContactCreated',
  evolve(doc, event) {
    const decoded = decode(event);
    switch (decoded.type) {
      case 'ContactCreated':
        return doc ?? docOf(event, decoded.data, valuesOf(decoded.data));
      case 'ContactUpdated':
        return doc && docOf(event, decoded.data, valuesOf(decoded.data.contact));
      case 'ContactDeleted':
        return doc && { ...doc, position: event.position, deletedAt: decoded.data.deletedAt, restorableUntil: decoded.data.restorableUntil };
      case 'ContactRestored':
        return docOf(event, decoded.data, valuesOf(decoded.data.contact));
      case 'ContactErased':
        return null;
      default: {
        const unknown: never = decoded;
        return unknown;
      }
    }
  },
});
