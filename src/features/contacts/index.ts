import { contactAggregate } from './application/contactAggregate.js';
import { phoneReservationAggregate } from './application/phoneReservationAggregate.js';
import { contactsResource } from './api/contactRoutes.js';
import { contactsCheck } from './readModels/contactsCheck.js';
import { contactOf, contactsProjection } from './readModels/contactsProjection.js';
import { exportedRecords } from '../../application/companyExport/ExportedRecords.js';
import { contactValuesProjection } from './readModels/contactValuesProjection.js';
import { deletedContactsProjection } from './readModels/deletedContactsProjection.js';
import { contactTriggerRecords } from './api/contactTriggerRecords.js';
import { contactWebhookEvents } from './application/contactWebhookEvents.js';
import { contactTimeline } from './readModels/contactTimeline.js';
import { readModel, type Feature } from '../Feature.js';
import { contactPersonalData } from './domain/contactPersonalData.js';
import { contactEraser } from './api/contactErasure.js';
import type { ContactSearchOf } from './application/contactSearch.js';
import { contactSearch } from './readModels/contactSearch.js';

/** The console's search of a company's contacts, over the `contacts` read model. */
export const contactSearchOf: ContactSearchOf = (readModels) => contactSearch(readModels.collection(contactsProjection));

/** Contacts, each phone number unique in its company (held by a reservation stream). */
export const contacts: Feature = {
  name: 'contacts',
  aggregates: [contactAggregate, phoneReservationAggregate],
  personalData: contactPersonalData,
  subjectErasers: [contactEraser],
  readModels: [readModel(contactsProjection, contactsCheck), readModel(contactValuesProjection), readModel(deletedContactsProjection)],
  resources: [contactsResource],
  exports: [exportedRecords('contacts', contactsProjection, contactOf)],
  webhookEvents: { ...contactWebhookEvents, triggerRecords: contactTriggerRecords, timelines: [contactTimeline] },
};

// What other features use of this one.
export { contacts as contactsOpenApi, normalisedPhoneNumber } from './api/contactsOpenApi.js';
export { contactAggregate } from './application/contactAggregate.js';
export { contactSampleHistory } from './application/contactWebhookEvents.js';
export type { ContactCommand } from './domain/contactCommands.js';
export { companyOfContact, contactDecider } from './domain/contactDecider.js';
export type { ContactState } from './domain/contactDecider.js';
export { ContactCreated, ContactDeleted, ContactErased, ContactEvent, ContactRestored, ContactUpdated, contactStream } from './domain/contactEvents.js';
export type { ContactChanges } from './domain/contactEvents.js';
export { contactFromCreated, toContactView } from './domain/contactRecord.js';
export type { ContactRecord } from './domain/contactRecord.js';
export type { Contact } from './domain/contactView.js';
export { contactAsOf } from './readModels/contactAsOf.js';
export { contactOf, contactsProjection } from './readModels/contactsProjection.js';
export type { ContactDoc } from './readModels/contactsProjection.js';
export type { ContactMatch, ContactMatches, ContactSearch, ContactSearchOf } from './application/contactSearch.js';
export { contactTimeline } from './readModels/contactTimeline.js';

// What the start-up uses of this one: the end of deleted contacts' restore periods.
export { ContactRetentionSweep } from './application/ContactRetentionSweep.js';
export { contactValuesProjection } from './readModels/contactValuesProjection.js';
export { goneContactResponse } from './api/contactErasure.js';
export { deletedContactsProjection, expiredDeletions } from './readModels/deletedContactsProjection.js';

// What the CLI's import uses of this one: the phone numbers of an imported company reserved under this store's names.
export { importedPhoneReservations } from './application/importedPhoneReservations.js';
