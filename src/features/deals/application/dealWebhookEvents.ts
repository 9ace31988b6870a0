import * as t from 'io-ts';
import type { RecordedEvent } from '../../../application/ports/EventStore.js';
import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import { contactSampleHistory } from './contactsForDeals.js';
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
import type { DealCommand } from '../domain/dealCommands.js';
import { DEAL_VIEW, DEAL_WON_VIEW } from '../domain/dealPersonalData.js';
import { nothingPersonal, type FieldsDeclaration } from '../../../shared/PersonalData.js';
import { liveContactSummaryOf } from '../domain/dealContactSummary.js';
import { dealDecider } from '../domain/dealDecider.js';
import { DealCreated, DealDeleted, DealRestored, DealStatusChanged, dealStream, type DealSnapshot } from '../domain/dealEvents.js';
import { dealFromCreated } from '../domain/dealRecord.js';
import { toDealSnapshot } from '../domain/dealView.js';
import { dealWonData, type DealWonData } from '../domain/dealWonData.js';
import { UserErased } from '../domain/usersForDeals.js';

const dealEventType = (type: string, fields: FieldsDeclaration = DEAL_VIEW): WebhookEventTypeSpec => ({
  type,
  readPermission: 'deals:read',
  tagged: false,
  recordPath: 'deals',
  fields,
});

/**
 * The webhook event types of deals: the specification's five, then a delete and a
 * restore (the deal's id and the time only). A deal has no tags: filters do not apply.
 */
export const DEAL_WEBHOOK_EVENT_TYPES: readonly WebhookEventTypeSpec[] = [
  dealEventType('deal.created'),
  dealEventType('deal.updated'),
  dealEventType('deal.stage_changed'),
  dealEventType('deal.won', DEAL_WON_VIEW),
  dealEventType('deal.lost'),
  dealEventType('deal.deleted', nothingPersonal('id', 'deletedAt')),
  dealEventType('deal.restored', nothingPersonal('id', 'restoredAt')),
];

/** The types whose events of a deleted deal leave the `recent` triggers: those that carry the deal. */
const DEAL_RECORD_TYPES = ['deal.created', 'deal.updated', 'deal.stage_changed', 'deal.won', 'deal.lost'];

/** What `deal.deleted` carries: the id and when. */
export type DealDeletedData = { readonly id: string; readonly deletedAt: string };
/** What `deal.restored` carries: the id and when; the deal itself is read with GET. */
export type DealRestoredData = { readonly id: string; readonly restoredAt: string };

const SourceEvent = t.union([DealCreated, DealStatusChanged, DealDeleted, DealRestored]);

/** Decodes with the codecs the events are written with; a refusal means the log and the code disagree. */
const decode = cachedDecoder(SourceEvent);

/**
 * The webhook events of a deal's stored event, in this order: a pure function
 * of it (the stored events carry the deal after the change, so no stream is folded).
 *
 * | stored event | webhook events, in this order | data |
 * |---|---|---|
 * | `DealCreated` | `deal.created` | Deal |
 * | `DealStatusChanged`, status → `won` | `deal.won`, then `deal.updated` | `DealWonData`; Deal |
 * | `DealStatusChanged`, status → `lost` | `deal.lost`, then `deal.updated` | Deal |
 * | `DealStatusChanged`, stage moved | `deal.stage_changed`, then `deal.updated` | Deal |
 * | `DealStatusChanged`, → `won`/`lost` and stage moved | `deal.won`/`deal.lost`, `deal.stage_changed`, `deal.updated` | as above |
 * | `DealStatusChanged`, reopened (→ `open`) or close date only | `deal.updated` | Deal |
 * | `DealDeleted` | `deal.deleted` | `{id, deletedAt}` |
 * | `DealRestored` | `deal.restored` | `{id, restoredAt}` |
 *
 * - The specific types come first, then `deal.updated`, exactly once per stored
 *   event (a win that also moves the stage is still one update of the deal).
 * - A correction `won ↔ lost` is a status change to `lost` (or `won`): it emits
 *   `deal.lost` (or `deal.won`) again, with the same close date.
 * - Deal data embed the contact summary as it was when the change was made (a
 *   deleted contact's: its id, every other field null); `tags` are `[]`.
 * - A personal field that reads as null in the stored event (the contact or the
 *   user erased) is null in the data too: nothing is made up for it.
 * - `DealDeleted` and `DealRestored` also take the deal's other events out of the
 *   `recent` triggers and bring them back (see `dealVisibility`).
 */
export const deriveDealWebhookEvents = (event: RecordedEvent): DerivedWebhookEvent<DealSnapshot | DealWonData | DealDeletedData | DealRestoredData>[] => {
  const decoded = decode(event);
  const common = { source: event.metadata.source, position: event.position, streamRevision: event.revision };
  const of = (type: string) => ({ eventId: webhookEventId(event.id, type), type });
  if (decoded.type === 'DealDeleted') {
    const { dealId: id, companyId, deletedAt } = decoded.data;
    return [{ ...of('deal.deleted'), companyId, timestamp: deletedAt, ...common, tags: [], data: { id, deletedAt } }];
  }
  if (decoded.type === 'DealRestored') {
    const { dealId: id, companyId, restoredAt } = decoded.data;
    return [{ ...of('deal.restored'), companyId, timestamp: restoredAt, ...common, tags: [], data: { id, restoredAt } }];
  }
  if (decoded.type === 'DealCreated') {
    const at = { companyId: decoded.data.companyId, timestamp: decoded.data.createdAt, ...common, tags: [] };
    return [{ ...of('deal.created'), ...at, data: toDealSnapshot(dealFromCreated(decoded)) }];
  }
  const { data } = decoded;
  const deal: DealSnapshot = data.deal;
  const at = { companyId: data.companyId, timestamp: data.updatedAt, ...common, tags: [] };
  const derived: DerivedWebhookEvent<DealSnapshot | DealWonData>[] = [];
  if (data.status?.to === 'won') derived.push({ ...of('deal.won'), ...at, data: dealWonData(deal, data.updatedAt) });
  if (data.status?.to === 'lost') derived.push({ ...of('deal.lost'), ...at, data: deal });
  if (data.stage !== undefined) derived.push({ ...of('deal.stage_changed'), ...at, data: deal });
  derived.push({ ...of('deal.updated'), ...at, data: deal });
  return derived;
};

const SAMPLE_DEAL_ID = '00000000-0000-4000-8000-000000000002';
const SAMPLE_USER_ID = '00000000-0000-4000-8000-000000000003';
const SAMPLE_COMPANY_ID = '00000000-0000-4000-8000-000000000000';

/**
 * A made-up deal of the example contact: created, moved to another stage, then
 * (alternatives of one history) won or lost; the won one deleted and restored.
 * The examples of `deal.*`.
 */
export const dealSampleHistory = (): readonly SampleEvent[] => {
  const contact = liveContactSummaryOf(contactSampleHistory().contact);
  if (contact === null) throw new Error('sample contact without its fields');
  const stream = dealStream(SAMPLE_DEAL_ID);
  const create: DealCommand = {
    type: 'CreateDeal',
    dealId: SAMPLE_DEAL_ID,
    companyId: SAMPLE_COMPANY_ID,
    fields: {
      title: 'Annual subscription - Example Corp',
      description: 'Renewal of the platform subscription for 25 seats.',
      value: 12000,
      currency: 'USD',
      stage: 'Proposal',
      priority: 'high',
      probability: 60,
      expectedCloseDate: '2024-03-31T00:00:00.000Z',
      source: 'Website',
    },
    contact,
    assignedTo: { id: SAMPLE_USER_ID, name: 'Sam Seller', email: 'sam.seller@example.com' },
    at: new Date('2024-01-17T10:00:00.000Z'),
  };
  const change = (fields: Extract<DealCommand, { type: 'ChangeDealStatus' }>['change'], at: string): DealCommand => ({
    type: 'ChangeDealStatus',
    dealId: SAMPLE_DEAL_ID,
    companyId: SAMPLE_COMPANY_ID,
    change: fields,
    contact,
    at: new Date(at),
  });
  const negotiating = sampleHistoryOf(dealDecider, stream, [create, change({ stage: 'Negotiation' }, '2024-02-01T16:45:00.000Z')]);
  const from = { state: negotiating.state, revision: negotiating.events.length };
  const won = sampleHistoryOf(dealDecider, stream, [change({ status: 'won', stage: 'Closed' }, '2024-02-20T11:15:00.000Z')], from);
  const lost = sampleHistoryOf(dealDecider, stream, [change({ status: 'lost', actualCloseDate: '2024-02-20T00:00:00.000Z' }, '2024-02-20T11:15:00.000Z')], from);
  const deleted = sampleHistoryOf(
    dealDecider,
    stream,
    [
      {
        type: 'DeleteDeal',
        dealId: SAMPLE_DEAL_ID,
        companyId: SAMPLE_COMPANY_ID,
        at: new Date('2024-02-21T09:00:00.000Z'),
        restorableUntil: new Date('2024-03-22T09:00:00.000Z'),
      },
      { type: 'RestoreDeal', dealId: SAMPLE_DEAL_ID, companyId: SAMPLE_COMPANY_ID, contact, at: new Date('2024-02-21T09:20:00.000Z') },
    ],
    { state: won.state, revision: negotiating.events.length + won.events.length },
  );
  return [...negotiating.events, ...won.events, ...lost.events, ...deleted.events];
};

const decodeVisibility = cachedDecoder(t.union([DealDeleted, DealRestored]));

/**
 * A deleted deal's `deal.*` events leave the `recent` triggers until it is
 * restored. (A deleted contact changes no deal's events: the deals keep it,
 * shown as nulls, and no webhook event derives from that.)
 */
export const dealVisibility: RecordVisibilitySource = {
  storedEventTypes: ['DealDeleted', 'DealRestored'],
  types: DEAL_RECORD_TYPES,
  of: (event) => {
    const { type, data } = decodeVisibility(event);
    return { companyId: data.companyId, id: data.dealId, hidden: type === 'DealDeleted' };
  },
};

const decodeUserErasure = cachedDecoder(UserErased);

/**
 * An erased user's values leave every webhook event that carries them: deals'
 * (`assignedTo`), in the trigger and feed records and the outbox. Users have no
 * webhook events of their own, so deals, which embed them, declare it.
 */
export const assignedUserErasure: RecordErasureSource = {
  storedEventTypes: ['UserErased'],
  of: (event) => {
    const { data } = decodeUserErasure(event);
    return { companyId: data.companyId, subject: { kind: 'user', id: data.userId } };
  },
};

/** What deals declare of their webhook events, but for the trigger records' schemas and the console's timeline. */
export const dealWebhookEvents: Pick<WebhookEventSource, 'types' | 'storedEventTypes' | 'derive' | 'sampleHistory' | 'visibility' | 'erasure'> = {
  types: DEAL_WEBHOOK_EVENT_TYPES,
  storedEventTypes: ['DealCreated', 'DealStatusChanged', 'DealDeleted', 'DealRestored'],
  derive: deriveDealWebhookEvents,
  sampleHistory: dealSampleHistory,
  visibility: dealVisibility,
  erasure: assignedUserErasure,
};
