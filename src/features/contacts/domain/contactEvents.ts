import * as t from 'io-ts';
import { ContactSnapshot } from './contactView.js';

/** The optional text fields of a contact, in response order. */
export const OPTIONAL_TEXT_FIELDS = [
  'firstName',
  'lastName',
  'email',
  'position',
  'currentCompany',
  'industrySector',
  'city',
  'country',
] as const;
export type OptionalTextField = (typeof OPTIONAL_TEXT_FIELDS)[number];

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/*
 * Every personal field of a contact's events (see `contactPersonalData`) may be
 * null: a person's fields read as null once the person is erased (their key is
 * gone, see docs/contributors/personal-data.md). The versions before that
 * (`contactEventVersions.ts`) held no such null.
 */

const optionalTextProps = {
  firstName: nullable(t.string),
  lastName: nullable(t.string),
  email: nullable(t.string),
  position: nullable(t.string),
  currentCompany: nullable(t.string),
  industrySector: nullable(t.string),
  city: nullable(t.string),
  country: nullable(t.string),
};

/**
 * Values a `ContactUpdated` carries: only the fields that changed; null =
 * cleared (an optional field), or erased with the person (any field).
 */
export const ContactChanges = t.partial({
  name: nullable(t.string),
  phoneNumber: nullable(t.string),
  ...optionalTextProps,
  tags: nullable(t.array(t.string)),
});
export type ContactChanges = t.TypeOf<typeof ContactChanges>;

/**
 * A contact came into being. Unset optional fields are absent; `phoneNumber` is
 * normalised; `createdAt` is ISO 8601 UTC with milliseconds (also the first `updatedAt`).
 * Version 2: every personal field present may be null (erased).
 */
export const ContactCreated = t.type({
  type: t.literal('ContactCreated'),
  data: t.intersection([
    t.type({
      contactId: t.string,
      companyId: t.string,
      name: nullable(t.string),
      phoneNumber: nullable(t.string),
      tags: nullable(t.array(t.string)),
      createdAt: t.string,
    }),
    t.partial(optionalTextProps),
  ]),
});
export type ContactCreated = t.TypeOf<typeof ContactCreated>;

/**
 * Some fields of a contact changed. `changes` holds only the fields whose value
 * changed, with their new values (null: cleared); `previous` the values they had.
 * `companyId` (never changes) makes the event self-contained for projections.
 *
 * `contact` is the whole contact after the change, in the API's Contact shape
 * (event-carried state): what a `contact.updated` webhook or trigger carries is
 * this one event, never a fold of the stream at delivery or replay time. It is
 * computed by the decider from the state it decided on (the revision the event
 * is appended after), so it is exact.
 *
 * Version 3: every personal field of `changes`, `previous` and `contact` may be
 * null (erased), so a null in `changes` no longer always means cleared.
 */
export const ContactUpdated = t.type({
  type: t.literal('ContactUpdated'),
  data: t.intersection([
    t.type({
      contactId: t.string,
      companyId: t.string,
      changes: ContactChanges,
      updatedAt: t.string,
      contact: ContactSnapshot,
    }),
    t.partial({ previous: ContactChanges }),
  ]),
});
export type ContactUpdated = t.TypeOf<typeof ContactUpdated>;

/**
 * The contact was deleted: it answers 404 and leaves every list until it is
 * restored, which it may be until `restorableUntil` (ISO 8601 UTC with
 * milliseconds, `deletedAt` plus the retention period the server had then).
 * Carries no personal field.
 */
export const ContactDeleted = t.type({
  type: t.literal('ContactDeleted'),
  data: t.type({ contactId: t.string, companyId: t.string, deletedAt: t.string, restorableUntil: t.string }),
});
export type ContactDeleted = t.TypeOf<typeof ContactDeleted>;

/**
 * A deleted contact came back as it was when it was deleted (`contact`, its
 * `updatedAt` unchanged: nothing of it changed). `contact` is event-carried state,
 * as in `ContactUpdated`: the read models rebuild the contact from this one event.
 * Version 2: the personal fields of `contact` may be null (erased).
 */
export const ContactRestored = t.type({
  type: t.literal('ContactRestored'),
  data: t.type({ contactId: t.string, companyId: t.string, restoredAt: t.string, contact: ContactSnapshot }),
});
export type ContactRestored = t.TypeOf<typeof ContactRestored>;

/** Why a contact was erased: an erase request, or the end of a deleted contact's restore period. */
export const ErasureReason = t.keyof({ requested: null, retention_ended: null });
export type ErasureReason = t.TypeOf<typeof ErasureReason>;

/**
 * The contact was erased (the person's right to erasure): the key its personal
 * values are sealed with is destroyed, so that every one of them the log holds, in
 * this stream and in others, reads as null from then on; it answers 404 for good
 * and cannot be restored. `reason`: `requested` (who asked is the event's
 * metadata: an API key, an admin token, a console session) or `retention_ended`
 * (a deleted contact whose restore period ended, erased by the server). Carries no
 * personal field.
 */
export const ContactErased = t.type({
  type: t.literal('ContactErased'),
  data: t.type({ contactId: t.string, companyId: t.string, erasedAt: t.string, reason: ErasureReason }),
});
export type ContactErased = t.TypeOf<typeof ContactErased>;

export const ContactEvent = t.union([ContactCreated, ContactUpdated, ContactDeleted, ContactRestored, ContactErased]);
export type ContactEvent = t.TypeOf<typeof ContactEvent>;

export const CONTACT_EVENT_TYPES: ReadonlySet<ContactEvent['type']> = new Set([
  'ContactCreated',
  'ContactUpdated',
  'ContactDeleted',
  'ContactRestored',
  'ContactErased',
]);

/** The stream of one contact. */
export const contactStream = (contactId: string): string => `contact-${contactId}`;
