import * as t from 'io-ts';

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
