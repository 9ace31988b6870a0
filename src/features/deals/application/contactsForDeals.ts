/**
 * What deals' writes, read models and API use of contacts beyond their domain
 * (see `domain/contactsForDeals.ts`): the contact aggregate whose streams a deal
 * reads, the example contact of the sample deal, and how a phone number is written.
 */
export { contactAggregate, contactSampleHistory, normalisedPhoneNumber } from '../../contacts/index.js';
