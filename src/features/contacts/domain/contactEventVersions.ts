import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { ContactState } from './contactDecider.js';
import type { ContactCreated, ContactRestored, ContactUpdated } from './contactEvents.js';
import { applyContactUpdated, toContactSnapshot } from './contactRecord.js';
import { ContactView, isLiveContact } from './contactView.js';

/*
 * Earlier versions of the contact's stored events, and the upcasters that read
 * them as the current version. A released version's codec never changes: a new
 * shape is a new version (see docs/contributors/changing-an-event.md).
 *
 *   ContactCreated   v1: every personal field a value (releases up to bf089fc)
 *                    v2 (current): v1, but each personal field may be null (erased)
 *   ContactUpdated   v1: changes, previous, updatedAt (releases up to 92d4d5c)
 *                    v2: v1 + `contact`, the whole contact after the change (releases up to bf089fc)
 *                    v3 (current): v2, but each personal field of `changes`, `previous`
 *                      and `contact` may be null (erased)
 *   ContactDeleted   v1 (current)
 *   ContactRestored  v1: the contact as it came back (releases up to bf089fc)
 *                    v2 (current): v1, but each personal field of `contact` may be null (erased)
 */

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/** `ContactCreated` version 1: every personal field present holds a value. */
export const ContactCreatedV1 = t.type({
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
    t.partial({
      firstName: t.string,
      lastName: t.string,
      email: t.string,
      position: t.string,
      currentCompany: t.string,
      industrySector: t.string,
      city: t.string,
      country: t.string,
    }),
  ]),
});
export type ContactCreatedV1 = t.TypeOf<typeof ContactCreatedV1>;

/**
 * `ContactCreated` v1 → v2: the identity. Version 2 only lets a personal field be
 * null (its person erased); version 1's values fit it as they are.
 */
export const upcastContactCreatedV1 = (event: ContactCreatedV1): ContactCreated => event;

/** The changes of `ContactUpdated` versions 1 and 2: null only for an optional field cleared. */
export const ContactChangesV1 = t.partial({
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

/** `ContactUpdated` version 1: the changed fields only, no snapshot of the contact. */
export const ContactUpdatedV1 = t.type({
  type: t.literal('ContactUpdated'),
  data: t.intersection([
    t.type({
      contactId: t.string,
      companyId: t.string,
      changes: ContactChangesV1,
      updatedAt: t.string,
    }),
    t.partial({ previous: ContactChangesV1 }),
  ]),
});
export type ContactUpdatedV1 = t.TypeOf<typeof ContactUpdatedV1>;

/** `ContactUpdated` version 2: the changed fields and `contact`, the whole (live) contact after the change. */
export const ContactUpdatedV2 = t.type({
  type: t.literal('ContactUpdated'),
  data: t.intersection([
    t.type({
      contactId: t.string,
      companyId: t.string,
      changes: ContactChangesV1,
      updatedAt: t.string,
      contact: ContactView,
    }),
    t.partial({ previous: ContactChangesV1 }),
  ]),
});
export type ContactUpdatedV2 = t.TypeOf<typeof ContactUpdatedV2>;

const hasField = (data: unknown, field: string): boolean => typeof data === 'object' && data !== null && field in data;

/**
 * The version of a `ContactUpdated` stored without a schema version (written
 * before versions were recorded): releases up to 92d4d5c wrote version 1, without
 * `contact`; later ones wrote version 2, with it, still unmarked. So: version 2
 * when `data.contact` is there, else version 1. (Version 3 came after versions
 * were recorded: no release wrote it unmarked.)
 */
export const unmarkedContactUpdatedVersion = (data: unknown): number => (hasField(data, 'contact') ? 2 : 1);

/**
 * `ContactUpdated` v1 → v2: adds `contact`, the whole contact after the change,
 * computed exactly as the decider computes it for a new event: the changes
 * applied to the contact as its stream had it just before this event (`before`).
 * Left (with the reason) when the stream holds no such contact. A contact whose
 * person was erased since (the event sealed in place, then its key destroyed) has
 * its personal fields null, which version 2 could not hold: such an event is judged
 * by the current version only (see `EventUpcaster`), so the result may hold them.
 */
export const upcastContactUpdatedV1 = (event: ContactUpdatedV1, before: ContactState): E.Either<string, ContactUpdatedV2 | ContactUpdated> => {
  if (before.status !== 'active') return E.left('no ContactCreated before it in its stream: the contact it changed is unknown');
  if (before.contact.id !== event.data.contactId) {
    return E.left(`it names contact ${event.data.contactId}, but its stream holds contact ${before.contact.id}`);
  }
  const contact = toContactSnapshot(applyContactUpdated(before.contact, event));
  return E.right({ type: 'ContactUpdated', data: { ...event.data, contact: isLiveContact(contact) ? { ...contact, tags: [...contact.tags] } : contact } });
};

/**
 * `ContactUpdated` v2 → v3: the identity. Version 3 only lets a personal field of
 * `changes`, `previous` and `contact` be null (its person erased); version 2's
 * values fit it as they are.
 */
export const upcastContactUpdatedV2 = (event: ContactUpdatedV2): ContactUpdated => event;

/** `ContactRestored` version 1: the contact as it came back, every personal field it has a value. */
export const ContactRestoredV1 = t.type({
  type: t.literal('ContactRestored'),
  data: t.type({ contactId: t.string, companyId: t.string, restoredAt: t.string, contact: ContactView }),
});
export type ContactRestoredV1 = t.TypeOf<typeof ContactRestoredV1>;

/** `ContactRestored` v1 → v2: the identity (version 2 only lets the contact's personal fields be null). */
export const upcastContactRestoredV1 = (event: ContactRestoredV1): ContactRestored => event;
