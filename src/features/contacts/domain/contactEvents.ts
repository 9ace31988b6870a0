import * as t from 'io-ts';
import { ContactView } from './contactView.js';

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

const optionalTextProps = {
  firstName: t.string,
  lastName: t.string,
  email: t.string,
  position: t.string,
  currentCompany: t.string,
  industrySector: t.string,
  city: t.string,
  country: t.string,
};

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/** Values a `ContactUpdated` carries: only the fields that changed; null = cleared. */
export const ContactChanges = t.partial({
  name: t.string,
  phoneNumber: t.string,
  firstName: nullable(t.string),
  lastName: nullable(t.string),
  email: nullable(t.string),
  position: nullable(t.string),
  currentCompany: nullable(t.string),
  industrySector: nullable(t.string),
  city: nullable(t.string),
  country: nullable(t.string),
  tags: t.array(t.string),
});
export type ContactChanges = t.TypeOf<typeof ContactChanges>;

/**
 * A contact came into being. Unset optional fields are absent; `phoneNumber` is
 * normalised; `createdAt` is ISO 8601 UTC with milliseconds (also the first `updatedAt`).
 */
export const ContactCreated = t.type({
  type: t.literal('ContactCreated'),
  data: t.intersection([
    t.type({
      contactId: t.string,
      companyId: t.string,
      name: t.string,
      phoneNumber: t.string,
      tags: t.array(t.string),
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
 */
export const ContactUpdated = t.type({
  type: t.literal('ContactUpdated'),
  data: t.intersection([
    t.type({
      contactId: t.string,
      companyId: t.string,
      changes: ContactChanges,
      updatedAt: t.string,
      contact: ContactView,
    }),
    t.partial({ previous: ContactChanges }),
  ]),
});
export type ContactUpdated = t.TypeOf<typeof ContactUpdated>;

export const ContactEvent = t.union([ContactCreated, ContactUpdated]);
export type ContactEvent = t.TypeOf<typeof ContactEvent>;

export const CONTACT_EVENT_TYPES: ReadonlySet<ContactEvent['type']> = new Set(['ContactCreated', 'ContactUpdated']);

/** The stream of one contact. */
export const contactStream = (contactId: string): string => `contact-${contactId}`;
