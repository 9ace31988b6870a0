import { contactAggregate } from './application/contactAggregate.js';
import { phoneReservationAggregate } from './application/phoneReservationAggregate.js';
import { contactsResource } from './api/contactRoutes.js';
import { contactsCheck } from './readModels/contactsCheck.js';
import { contactsProjection } from './readModels/contactsProjection.js';
import { readModel, type Feature } from '../Feature.js';

/** Contacts, each phone number unique in its company (held by a reservation stream). */
export const contacts: Feature = {
  name: 'contacts',
  aggregates: [contactAggregate, phoneReservationAggregate],
  readModels: [readModel(contactsProjection, contactsCheck)],
  resources: [contactsResource],
};
