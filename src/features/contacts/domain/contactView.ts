import * as t from 'io-ts';

const nullableString = t.union([t.string, t.null]);

/**
 * A contact as the API returns it (responses of the contact routes): unset
 * optional strings are null, `tags` is an array (empty when none), timestamps are
 * ISO 8601 UTC with milliseconds. Only a live contact shows so: one whose person
 * was erased has no such view (`isLiveContact`).
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

/**
 * A contact as its events carry it (`ContactUpdated`, `ContactRestored`) and as the
 * read model and webhook payloads keep it: the Contact's fields, each personal one
 * (see `contactPersonalData`) null when it reads as null because its person was
 * erased (their key is gone). `name`, `phoneNumber` and `tags` are null only then.
 */
export const ContactSnapshot = t.type({
  id: t.string,
  name: nullableString,
  firstName: nullableString,
  lastName: nullableString,
  phoneNumber: nullableString,
  email: nullableString,
  position: nullableString,
  currentCompany: nullableString,
  industrySector: nullableString,
  city: nullableString,
  country: nullableString,
  tags: t.union([t.array(t.string), t.null]),
  createdAt: t.string,
  updatedAt: t.string,
});
export type ContactSnapshot = t.TypeOf<typeof ContactSnapshot>;

/** The fields a live contact always has: null in a contact only when its person was erased. */
interface ErasableFields {
  readonly name: string | null;
  readonly phoneNumber: string | null;
  readonly tags: readonly string[] | null;
}

/** A contact (a record, a snapshot) whose person was not erased: `name`, `phoneNumber` and `tags` are there. */
export type LiveContact<C extends ErasableFields> = C & { readonly name: string; readonly phoneNumber: string; readonly tags: readonly string[] };

/**
 * True for a live contact; false for one whose person was erased (its fields read
 * as null), which the API does not show: it answers as for an unknown contact.
 */
export const isLiveContact = <C extends ErasableFields>(contact: C): contact is LiveContact<C> =>
  contact.name !== null && contact.phoneNumber !== null && contact.tags !== null;
