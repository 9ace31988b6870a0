import * as t from 'io-ts';
import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import type { RecordedEvent } from '../../../application/ports/EventStore.js';
import { ContactCreated, ContactUpdated } from '../../contacts/index.js';
import { contactFromCreated } from '../../contacts/index.js';
import type { Contact } from '../../contacts/index.js';
import { toContactView } from '../../contacts/index.js';
import { DealCreated, DealStatusChanged } from '../../deals/index.js';
import { dealFromCreated } from '../../deals/index.js';
import { toDealView, type Deal } from '../../deals/index.js';
import type { WebhookEventType } from '../domain/eventTypes.js';
import { webhookEventId, type DealWonData, type DerivedWebhookEvent } from '../domain/derivedWebhookEvent.js';

/** The stored event types that derive webhook events (every other type derives none). */
export const WEBHOOK_SOURCE_EVENT_TYPES: ReadonlySet<string> = new Set([
  'ContactCreated',
  'ContactUpdated',
  'DealCreated',
  'DealStatusChanged',
]);

/**
 * The company of every webhook event `deriveWebhookEvents` gives for a stored
 * event, read without deriving them (no decoding, no event ids): its
 * `data.companyId`. Null when the type derives none, or the field is not a text
 * (the derivation then says what is wrong). The fan-out derives nothing for a
 * company without subscriptions.
 */
export const webhookCompanyOf = (event: RecordedEvent): string | null => {
  if (!WEBHOOK_SOURCE_EVENT_TYPES.has(event.type)) return null;
  const data: unknown = event.data;
  const companyId = typeof data === 'object' && data !== null ? (data as { companyId?: unknown }).companyId : undefined;
  return typeof companyId === 'string' ? companyId : null;
};

/**
 * The one mapping from stored events to webhook events: a pure function of one
 * stored event (its id, data, metadata, position and revision), so the fan-out,
 * the trigger read model, a redelivery and a replay of the log all see the same
 * webhook events with the same ids. The stored events carry the state after the
 * change (`ContactUpdated.contact`, `DealStatusChanged.deal`), so no stream is
 * folded here.
 *
 * | stored event | webhook events, in this order | data |
 * |---|---|---|
 * | `ContactCreated` | `contact.created` | Contact |
 * | `ContactUpdated` | `contact.updated` | Contact after the change |
 * | `DealCreated` | `deal.created` | Deal |
 * | `DealStatusChanged`, status → `won` | `deal.won`, then `deal.updated` | `DealWonData`; Deal |
 * | `DealStatusChanged`, status → `lost` | `deal.lost`, then `deal.updated` | Deal |
 * | `DealStatusChanged`, stage moved | `deal.stage_changed`, then `deal.updated` | Deal |
 * | `DealStatusChanged`, → `won`/`lost` and stage moved | `deal.won`/`deal.lost`, `deal.stage_changed`, `deal.updated` | as above |
 * | `DealStatusChanged`, reopened (→ `open`) or close date only | `deal.updated` | Deal |
 * | anything else (API keys, companies, users, agents, webhooks, phone reservations) | none | |
 *
 * - The specific types come first, then `deal.updated`, exactly once per stored
 *   event (a win that also moves the stage is still one update of the deal).
 * - A correction `won ↔ lost` is a status change to `lost` (or `won`): it emits
 *   `deal.lost` (or `deal.won`) again, with the same close date.
 * - Deal data embed the contact summary as it was when the change was made.
 * - `timestamp` is the stored event's business time (`createdAt` / `updatedAt`),
 *   `source` its `metadata.source`, `eventId` `webhookEventId(storedEvent.id, type)`.
 */
export const deriveWebhookEvents = (event: RecordedEvent): DerivedWebhookEvent[] => {
  if (!WEBHOOK_SOURCE_EVENT_TYPES.has(event.type)) return [];
  const decoded = decode(event);
  const common = {
    source: event.metadata.source,
    position: event.position,
    streamRevision: event.revision,
  };
  const of = <T extends WebhookEventType>(type: T) => ({ eventId: webhookEventId(event.id, type), type });
  switch (decoded.type) {
    case 'ContactCreated': {
      const contact = toContactView(contactFromCreated(decoded));
      const at = { companyId: decoded.data.companyId, timestamp: decoded.data.createdAt, ...common, tags: contact.tags };
      return [{ ...of('contact.created'), ...at, data: contact }];
    }
    case 'ContactUpdated': {
      const contact: Contact = decoded.data.contact;
      // Filters see the tags after the change and those it removed: an update that takes a
      // contact's last matching tag away still reaches the subscription, which learns so.
      const removed = (decoded.data.previous?.tags ?? []).filter((tag) => !contact.tags.includes(tag));
      const tags = removed.length === 0 ? contact.tags : [...contact.tags, ...removed];
      const at = { companyId: decoded.data.companyId, timestamp: decoded.data.updatedAt, ...common, tags };
      return [{ ...of('contact.updated'), ...at, data: contact }];
    }
    case 'DealCreated': {
      const at = { companyId: decoded.data.companyId, timestamp: decoded.data.createdAt, ...common, tags: [] };
      return [{ ...of('deal.created'), ...at, data: toDealView(dealFromCreated(decoded)) }];
    }
    case 'DealStatusChanged': {
      const { data } = decoded;
      const deal: Deal = data.deal;
      const at = { companyId: data.companyId, timestamp: data.updatedAt, ...common, tags: [] };
      const derived: DerivedWebhookEvent[] = [];
      if (data.status?.to === 'won') derived.push({ ...of('deal.won'), ...at, data: dealWonData(deal, data.updatedAt) });
      if (data.status?.to === 'lost') derived.push({ ...of('deal.lost'), ...at, data: deal });
      if (data.stage !== undefined) derived.push({ ...of('deal.stage_changed'), ...at, data: deal });
      derived.push({ ...of('deal.updated'), ...at, data: deal });
      return derived;
    }
    default: {
      const unknown: never = decoded;
      return unknown;
    }
  }
};

/** `deal.won` data: the specification's fields; `wonAt` is the close date (a won deal always has one). */
const dealWonData = (deal: Deal, changedAt: string): DealWonData => ({
  id: deal.id,
  title: deal.title,
  value: deal.value,
  currency: deal.currency,
  stage: deal.stage,
  status: 'won',
  wonAt: deal.actualCloseDate ?? changedAt,
  contact: deal.contact && { id: deal.contact.id, name: deal.contact.name, email: deal.contact.email },
});

const SourceEvent = t.union([ContactCreated, ContactUpdated, DealCreated, DealStatusChanged]);
type SourceEvent = t.TypeOf<typeof SourceEvent>;

/** Decodes with the codecs the events are written with; a refusal means the log and the code disagree. */
const decode = cachedDecoder(SourceEvent);
