import * as t from 'io-ts';
import type { ContactRecord } from './contactRecord.js';

const nullableString = t.union([t.string, t.null]);

/**
 * A contact as the API returns it (responses, read model, webhook payloads):
 * unset optional strings are null, `tags` is an array (empty when none),
 * timestamps are ISO 8601 UTC with milliseconds.
 */
export const ContactView = t.type({
  id: t.string,
  name: t.string,
  firstName: nullableString,
  lastName: nullableString,
  phoneNumber: t.string,
  email: nullableString,
  position: nullableString,
  currentCompany: nullableString,
  industrySector: nullableString,
  city: nullableString,
  country: nullableString,
  tags: t.array(t.string),
  createdAt: t.string,
  updatedAt: t.string,
});
export type Contact = t.TypeOf<typeof ContactView>;

/** The response view of a contact; the service and the read model both use it, so they agree. */
export const toContactView = (contact: ContactRecord): Contact => ({
  id: contact.id,
  name: contact.name,
  firstName: contact.firstName,
  lastName: contact.lastName,
  phoneNumber: contact.phoneNumber,
  email: contact.email,
  position: contact.position,
  currentCompany: contact.currentCompany,
  industrySector: contact.industrySector,
  city: contact.city,
  country: contact.country,
  tags: [...contact.tags],
  createdAt: contact.createdAt,
  updatedAt: contact.updatedAt,
});
