import {
  DOCUMENT_FIELDS,
  nestedUnder,
  nothingPersonal,
  personalOf,
  under,
  type FieldsDeclaration,
  type PersonalDataDeclaration,
} from '../../../shared/PersonalData.js';
import { OPTIONAL_TEXT_FIELDS } from './contactEvents.js';
import { PHONE_RESERVATION_STREAM_PREFIX } from './phoneReservationEvents.js';

/**
 * A contact's personal fields: every field a company keeps about the person, its
 * tags included (free text about them). Its id, its company and its times are not
 * personal.
 */
export const CONTACT_PERSONAL_FIELDS: readonly string[] = ['name', 'phoneNumber', ...OPTIONAL_TEXT_FIELDS, 'tags[]'];

/** The Contact view's fields that are not personal. */
const CONTACT_VIEW_NOT_PERSONAL = ['id', 'createdAt', 'updatedAt'];

/** The Contact as the API shows it (responses, the read model's `contact`, webhook payloads). */
export const CONTACT_VIEW: FieldsDeclaration = {
  personal: [personalOf('contact', 'id', CONTACT_PERSONAL_FIELDS)],
  notPersonal: CONTACT_VIEW_NOT_PERSONAL,
};

/** The personal data contacts store, by stored event type and read model. */
export const contactPersonalData: PersonalDataDeclaration = {
  events: {
    ContactCreated: {
      personal: [personalOf('contact', 'contactId', CONTACT_PERSONAL_FIELDS)],
      notPersonal: ['contactId', 'companyId', 'createdAt'],
    },
    ContactUpdated: {
      personal: [
        personalOf('contact', 'contactId', [
          ...under('changes', CONTACT_PERSONAL_FIELDS),
          ...under('previous', CONTACT_PERSONAL_FIELDS),
          ...under('contact', CONTACT_PERSONAL_FIELDS),
        ]),
      ],
      notPersonal: ['contactId', 'companyId', 'updatedAt', ...under('contact', CONTACT_VIEW_NOT_PERSONAL)],
    },
    ContactDeleted: nothingPersonal('contactId', 'companyId', 'deletedAt', 'restorableUntil'),
    ContactRestored: {
      personal: [personalOf('contact', 'contactId', under('contact', CONTACT_PERSONAL_FIELDS))],
      notPersonal: ['contactId', 'companyId', 'restoredAt', ...under('contact', CONTACT_VIEW_NOT_PERSONAL)],
    },
    ContactErased: nothingPersonal('contactId', 'companyId', 'erasedAt'),
    // The number is the contact's: the reservation stream's name holds it (stored hashed, see `streams`), its events do not.
    PhoneNumberReserved: nothingPersonal('companyId', 'contactId', 'at', 'takenOverFrom'),
    PhoneNumberReleased: nothingPersonal('contactId', 'at'),
  },
  readModels: {
    contacts: nestedUnder('contact', CONTACT_VIEW, DOCUMENT_FIELDS),
    // The values a contact is erased by (`POST /contacts/erase`), deleted contacts' included.
    contact_values: {
      personal: [personalOf('contact', 'id', ['email', 'phoneNumber'])],
      notPersonal: [...DOCUMENT_FIELDS, 'deletedAt', 'restorableUntil'],
    },
    deleted_contacts: nothingPersonal(...DOCUMENT_FIELDS, 'contactCompanyId', 'deletedAt', 'restorableUntil'),
  },
  // A reservation stream is named after its number (phoneReservationStream): stored with the number hashed.
  streams: [PHONE_RESERVATION_STREAM_PREFIX],
  // Version 1 of a reservation held the number too; version 2 is version 1 without it.
  retired: { PhoneNumberReserved: { fields: ['phoneNumber'], version: 2 } },
};
