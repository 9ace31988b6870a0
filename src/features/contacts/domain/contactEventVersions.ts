import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { ContactState } from './contactDecider.js';
import { ContactChanges, type ContactUpdated } from './contactEvents.js';
import { applyContactUpdated, toContactView } from './contactRecord.js';

/*
 * Earlier versions of the contact's stored events, and the upcasters that read
 * them as the current version. A released version's codec never changes: a new
 * shape is a new version (see docs/contributors/changing-an-event.md).
 *
 *   ContactCreated  v1 (current)
 *   ContactUpdated  v1: changes, previous, updatedAt (releases up to 92d4d5c)
 *                   v2 (current): v1 + `contact`, the whole contact after the change
 */

/** `ContactUpdated` version 1: the changed fields only, no snapshot of the contact. */
export const ContactUpdatedV1 = t.type({
  type: t.literal('ContactUpdated'),
  data: t.intersection([
    t.type({
      contactId: t.string,
      companyId: t.string,
      changes: ContactChanges,
      updatedAt: t.string,
    }),
    t.partial({ previous: ContactChanges }),
  ]),
});
export type ContactUpdatedV1 = t.TypeOf<typeof ContactUpdatedV1>;

const hasField = (data: unknown, field: string): boolean => typeof data === 'object' && data !== null && field in data;

/**
 * The version of a `ContactUpdated` stored without a schema version (written
 * before versions were recorded): releases up to 92d4d5c wrote version 1, without
 * `contact`; later ones wrote version 2, with it, still unmarked. So: version 2
 * when `data.contact` is there, else version 1.
 */
export const unmarkedContactUpdatedVersion = (data: unknown): number => (hasField(data, 'contact') ? 2 : 1);

/**
 * `ContactUpdated` v1 → v2: adds `contact`, the whole contact after the change,
 * computed exactly as the decider computes it for a new event: the changes
 * applied to the contact as its stream had it just before this event (`before`).
 * Left (with the reason) when the stream holds no such contact.
 */
export const upcastContactUpdatedV1 = (event: ContactUpdatedV1, before: ContactState): E.Either<string, ContactUpdated> => {
  if (before.status !== 'active') return E.left('no ContactCreated before it in its stream: the contact it changed is unknown');
  if (before.contact.id !== event.data.contactId) {
    return E.left(`it names contact ${event.data.contactId}, but its stream holds contact ${before.contact.id}`);
  }
  const contact = toContactView(applyContactUpdated(before.contact, event));
  return E.right({ type: 'ContactUpdated', data: { ...event.data, contact } });
};
