import * as t from 'io-ts';
import type { RecordedEvent } from '../../../application/ports/EventStore.js';
import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import {
  sampleHistoryOf,
  webhookEventId,
  type DerivedWebhookEvent,
  type RecordErasureSource,
  type RecordVisibilitySource,
  type SampleEvent,
  type WebhookEventSource,
  type WebhookEventTypeSpec,
} from '../../webhookEvents/index.js';
import type { ContactCommand } from '../domain/contactCommands.js';
import { CONTACT_VIEW } from '../domain/contactPersonalData.js';
import { nothingPersonal, type FieldsDeclaration } from '../../../shared/PersonalData.js';
import { contactDecider } from '../domain/contactDecider.js';
import { ContactCreated, ContactDeleted, ContactErased, ContactRestored, ContactUpdated, contactStream } from '../domain/contactEvents.js';
import { contactFromCreated, toContactSnapshot, type ContactRecord } from '../domain/contactRecord.js';
import type { ContactSnapshot } from '../domain/contactView.js';

const contactEventType = (type: string, fields: FieldsDeclaration, tagged = true): WebhookEventTypeSpec => ({
  type,
  readPermission: 'contacts:read',
  tagged,
  recordPath: 'contacts',
  fields,
});

/**
 * The webhook event types of contacts: the specification's two, which carry the
 * Contact, tags and all; then a delete, a restore and an erasure, which carry its
 * id and the time only (so no tag filters apply to them).
 */
export const CONTACT_WEBHOOK_EVENT_TYPES: readonly WebhookEventTypeSpec[] = [
  contactEventType('contact.created', CONTACT_VIEW),
  contactEventType('contact.updated', CONTACT_VIEW),
  contactEventType('contact.deleted', nothingPersonal('id', 'deletedAt'), false),
  contactEventType('contact.restored', nothingPersonal('id', 'restoredAt'), false),
  contactEventType('contact.erased', nothingPersonal('id', 'erasedAt'), false),
];

/** What `contact.deleted` carries: the id and when, nothing of the contact. */
export type ContactDeletedData = { readonly id: string; readonly deletedAt: string };
/** What `contact.restored` carries: the id and when; the contact itself is read with GET. */
export type ContactRestoredData = { readonly id: string; readonly restoredAt: string };
/** What `contact.erased` carries: the id and when, so that a receiver erases its own copies. */
export type ContactErasedData = { readonly id: string; readonly erasedAt: string };

const SourceEvent = t.union([ContactCreated, ContactUpdated, ContactDeleted, ContactRestored, ContactErased]);

/** Decodes with the codecs the events are written with; a refusal means the log and the code disagree. */
const decode = cachedDecoder(SourceEvent);

/**
 * The webhook events of a contact's stored event: a pure function of it, so every
 * retry, redelivery and replay sees the same events with the same ids.
 *
 * | stored event | webhook event | data |
 * |---|---|---|
 * | `ContactCreated` | `contact.created` | Contact |
 * | `ContactUpdated` | `contact.updated` | Contact after the change (the event carries it) |
 * | `ContactDeleted` | `contact.deleted` | `{id, deletedAt}` |
 * | `ContactRestored` | `contact.restored` | `{id, restoredAt}` |
 * | `ContactErased` | `contact.erased` | `{id, erasedAt}` |
 *
 * `tags` (what subscription filters match) are the contact's after the change,
 * plus those an update removed; `timestamp` is the stored event's business time
 * (`createdAt` / `updatedAt`), `source` its `metadata.source`, `eventId`
 * `webhookEventId(storedEvent.id, type)`.
 *
 * A personal field that reads as null in the stored event (its person erased) is
 * null in the data too, and its tags are none: nothing is made up for it.
 */
export const deriveContactWebhookEvents = (
  event: RecordedEvent,
): DerivedWebhookEvent<ContactSnapshot | ContactDeletedData | ContactRestoredData | ContactErasedData>[] => {
  const decoded = decode(event);
  const common = { source: event.metadata.source, position: event.position, streamRevision: event.revision };
  if (decoded.type === 'ContactDeleted') {
    const { contactId: id, companyId, deletedAt } = decoded.data;
    const at = { companyId, timestamp: deletedAt, ...common, tags: [] };
    return [{ eventId: webhookEventId(event.id, 'contact.deleted'), type: 'contact.deleted', ...at, data: { id, deletedAt } }];
  }
  if (decoded.type === 'ContactRestored') {
    const { contactId: id, companyId, restoredAt } = decoded.data;
    const at = { companyId, timestamp: restoredAt, ...common, tags: [] };
    return [{ eventId: webhookEventId(event.id, 'contact.restored'), type: 'contact.restored', ...at, data: { id, restoredAt } }];
  }
  if (decoded.type === 'ContactErased') {
    const { contactId: id, companyId, erasedAt } = decoded.data;
    const at = { companyId, timestamp: erasedAt, ...common, tags: [] };
    return [{ eventId: webhookEventId(event.id, 'contact.erased'), type: 'contact.erased', ...at, data: { id, erasedAt } }];
  }
  if (decoded.type === 'ContactCreated') {
    const contact = toContactSnapshot(contactFromCreated(decoded));
    const at = { companyId: decoded.data.companyId, timestamp: decoded.data.createdAt, ...common, tags: contact.tags ?? [] };
    return [{ eventId: webhookEventId(event.id, 'contact.created'), type: 'contact.created', ...at, data: contact }];
  }
  const contact: ContactSnapshot = decoded.data.contact;
  const after = contact.tags ?? [];
  // Filters see the tags after the change and those it removed: an update that takes a
  // contact's last matching tag away still reaches the subscription, which learns so.
  const removed = (decoded.data.previous?.tags ?? []).filter((tag) => !after.includes(tag));
  const tags = removed.length === 0 ? after : [...after, ...removed];
  const at = { companyId: decoded.data.companyId, timestamp: decoded.data.updatedAt, ...common, tags };
  return [{ eventId: webhookEventId(event.id, 'contact.updated'), type: 'contact.updated', ...at, data: contact }];
};

const SAMPLE_CONTACT_ID = '00000000-0000-4000-8000-000000000001';
const SAMPLE_COMPANY_ID = '00000000-0000-4000-8000-000000000000';

/** A made-up contact, created, updated, deleted and restored. Values are plainly fake: `example.com` addresses, a 555-01xx number. */
const SAMPLE_COMMANDS: readonly ContactCommand[] = [
  {
    type: 'CreateContact',
    contactId: SAMPLE_CONTACT_ID,
    companyId: SAMPLE_COMPANY_ID,
    fields: {
      name: 'Jane Doe',
      firstName: 'Jane',
      lastName: 'Doe',
      phoneNumber: '+15555550100',
      email: 'jane.doe@example.com',
      position: 'Head of Operations',
      currentCompany: 'Example Corp',
      industrySector: 'Software',
      city: 'Springfield',
      country: 'United States',
      tags: ['vip', 'newsletter'],
    },
    at: new Date('2024-01-15T09:30:00.000Z'),
  },
  {
    type: 'UpdateContact',
    contactId: SAMPLE_CONTACT_ID,
    companyId: SAMPLE_COMPANY_ID,
    changes: { city: 'Shelbyville', tags: ['vip', 'newsletter', 'partner'] },
    at: new Date('2024-01-16T14:05:00.000Z'),
  },
  {
    type: 'DeleteContact',
    contactId: SAMPLE_CONTACT_ID,
    companyId: SAMPLE_COMPANY_ID,
    at: new Date('2024-01-17T08:00:00.000Z'),
    restorableUntil: new Date('2024-02-16T08:00:00.000Z'),
  },
  { type: 'RestoreContact', contactId: SAMPLE_CONTACT_ID, companyId: SAMPLE_COMPANY_ID, at: new Date('2024-01-17T08:15:00.000Z') },
];

/** The made-up contact's history (the examples of `contact.*`) and the contact after it (the example deals' contact). */
export const contactSampleHistory = (): { readonly events: readonly SampleEvent[]; readonly contact: ContactRecord } => {
  const { events, state } = sampleHistoryOf(contactDecider, contactStream(SAMPLE_CONTACT_ID), SAMPLE_COMMANDS);
  if (state.status !== 'active') throw new Error('sample contact missing');
  return { events, contact: state.contact };
};

const ERASED_SAMPLE_CONTACT_ID = '00000000-0000-4000-8000-000000000003';

/** Another made-up contact, created and erased: the example of `contact.erased`. */
const erasedContactSampleHistory = (): readonly SampleEvent[] =>
  sampleHistoryOf(contactDecider, contactStream(ERASED_SAMPLE_CONTACT_ID), [
    {
      type: 'CreateContact',
      contactId: ERASED_SAMPLE_CONTACT_ID,
      companyId: SAMPLE_COMPANY_ID,
      fields: { name: 'John Roe', phoneNumber: '+15555550101', email: 'john.roe@example.com' },
      at: new Date('2024-01-18T10:00:00.000Z'),
    },
    { type: 'EraseContact', contactId: ERASED_SAMPLE_CONTACT_ID, companyId: SAMPLE_COMPANY_ID, at: new Date('2024-01-18T11:00:00.000Z'), reason: 'requested' },
  ]).events;

const decodeVisibility = cachedDecoder(t.union([ContactDeleted, ContactRestored, ContactErased]));

/** A deleted contact's `contact.created` and `contact.updated` leave the `recent` triggers until it is restored; an erased one's, for good. */
export const contactVisibility: RecordVisibilitySource = {
  storedEventTypes: ['ContactDeleted', 'ContactRestored', 'ContactErased'],
  types: ['contact.created', 'contact.updated'],
  of: (event) => {
    const { type, data } = decodeVisibility(event);
    return { companyId: data.companyId, id: data.contactId, hidden: type !== 'ContactRestored' };
  },
};

const decodeErasure = cachedDecoder(ContactErased);

/** An erased contact's values leave every webhook event that carries them (contacts' and deals'). */
export const contactErasure: RecordErasureSource = {
  storedEventTypes: ['ContactErased'],
  of: (event) => {
    const { data } = decodeErasure(event);
    return { companyId: data.companyId, subject: { kind: 'contact', id: data.contactId } };
  },
};

/** What contacts declare of their webhook events, but for the trigger records' schemas and the console's timeline. */
export const contactWebhookEvents: Pick<WebhookEventSource, 'types' | 'storedEventTypes' | 'derive' | 'sampleHistory' | 'visibility' | 'erasure'> = {
  types: CONTACT_WEBHOOK_EVENT_TYPES,
  storedEventTypes: ['ContactCreated', 'ContactUpdated', 'ContactDeleted', 'ContactRestored', 'ContactErased'],
  derive: deriveContactWebhookEvents,
  sampleHistory: () => [...contactSampleHistory().events, ...erasedContactSampleHistory()],
  visibility: contactVisibility,
  erasure: contactErasure,
};
