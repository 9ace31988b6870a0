import { contactAggregate } from '../application/aggregates/contactAggregate.js';
import { phoneReservationAggregate } from '../application/aggregates/phoneReservationAggregate.js';
import { contactsResource } from '../http/routes/contacts.js';
import { contactsCheck } from '../../projections/contacts/contactsCheck.js';
import { contactsProjection } from '../../projections/contacts/contactsProjection.js';
import { readModel, type Feature } from './Feature.js';

/** Contacts, each phone number unique in its company (held by a reservation stream). */
export const contacts: Feature = {
  name: 'contacts',
  aggregates: [contactAggregate, phoneReservationAggregate],
  readModels: [readModel(contactsProjection, contactsCheck)],
  resources: [contactsResource],
};
