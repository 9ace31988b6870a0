import { parse as parseUuid, v5 as uuidv5 } from 'uuid';
import type { WebhookEventType } from './eventTypes.js';
import type { EventSource } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';

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
 * A webhook event derived from one stored event: its type and its `data`, the
 * record in the shape the feature that declares the type gives it (the Contact
 * for `contact.*`, `DealWon` for `deal.won`, the Deal for the other `deal.*`).
 */
export interface DerivedWebhookEvent<Data extends WebhookEventData = WebhookEventData> extends DerivedWebhookEventBase {
  readonly type: WebhookEventType;
  readonly data: Data;
}

/** The `data` of any webhook event: a record, as JSON. */
export type WebhookEventData = Readonly<Record<string, unknown>>;

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
