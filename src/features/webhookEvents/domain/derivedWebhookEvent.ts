import * as t from 'io-ts';
import { parse as parseUuid, v5 as uuidv5 } from 'uuid';
import type { Contact } from '../../contacts/index.js';
import type { Deal } from '../../deals/index.js';
import type { WebhookEventType } from './eventTypes.js';
import type { EventSource } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/**
 * The `data` of a `deal.won` webhook, exactly the specification's fields: the
 * deal's `id`, `title`, `value`, `currency`, `stage`, `status` (always `won`), the
 * won timestamp `wonAt` (the deal's `actualCloseDate`) and its contact as
 * `{id, name, email}` (null when the deal has none).
 */
export const DealWonData = t.type({
  id: t.string,
  title: t.string,
  value: t.number,
  currency: t.string,
  stage: nullable(t.string),
  status: t.literal('won'),
  wonAt: t.string,
  contact: nullable(t.type({ id: t.string, name: t.string, email: nullable(t.string) })),
});
export type DealWonData = t.TypeOf<typeof DealWonData>;

/** What every derived webhook event carries besides its type and data. */
interface DerivedWebhookEventBase {
  /** `metadata.eventId`: the same for every retry, redelivery and replay (see `webhookEventId`). */
  readonly eventId: string;
  readonly companyId: string;
  /** When the change happened: the stored event's own business time (`createdAt` / `updatedAt`), ISO 8601 UTC with ms. */
  readonly timestamp: string;
  /** `metadata.source` of the stored event: `api`, `cli`, `system`. */
  readonly source: EventSource;
  /** Log position of the stored event (shared by every webhook event it derives). */
  readonly position: Position;
  /** Revision of the stored event in its stream. */
  readonly streamRevision: number;
  /**
   * The tags subscription filters match: the contact's after the change, plus
   * those a `contact.updated` removed; `[]` for deal events.
   */
  readonly tags: readonly string[];
}

/**
 * A webhook event derived from one stored event: its type and its `data`, which
 * is the Contact shape for `contact.*`, `DealWonData` for `deal.won`, and the Deal
 * shape for every other `deal.*` type.
 */
export type DerivedWebhookEvent = DerivedWebhookEventBase &
  (
    | { readonly type: 'contact.created' | 'contact.updated'; readonly data: Contact }
    | { readonly type: 'deal.won'; readonly data: DealWonData }
    | { readonly type: 'deal.created' | 'deal.updated' | 'deal.stage_changed' | 'deal.lost'; readonly data: Deal }
  );

/** The `data` of any webhook event. */
export type WebhookEventData = DerivedWebhookEvent['data'];

// Compile-time check: every webhook event type has a payload above, and nothing else does.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const everyTypeHasData: Same<WebhookEventType, DerivedWebhookEvent['type']> = true;
void everyTypeHasData;

/**
 * Namespace of webhook event ids (UUIDv5). Fixed for good: changing it would give
 * every past event a new id, and receivers would take redeliveries for new events.
 */
export const WEBHOOK_EVENT_ID_NAMESPACE = '6b8ceecf-f8a3-41c5-b6f1-944f2f2a720a';

/**
 * The id of the webhook event of `type` derived from the stored event
 * `storedEventId`: the UUIDv5 of `<storedEventId>:<type>`. A pure function of the
 * two, so every retry, redelivery and replay of the log carries the same id, and
 * two webhook events derived from one stored event (`deal.won` and `deal.updated`)
 * get different ids.
 */
export const webhookEventId = (storedEventId: string, type: WebhookEventType): string =>
  uuidv5(`${storedEventId}:${type}`, NAMESPACE_BYTES);

/** The namespace parsed once (a rebuild derives an id per webhook event). */
const NAMESPACE_BYTES = parseUuid(WEBHOOK_EVENT_ID_NAMESPACE);
