import type { WebhookEventType } from './eventTypes.js';
import type { EventSource } from '../../../shared/EventMetadata.js';
import type { DerivedWebhookEvent, WebhookEventData } from './derivedWebhookEvent.js';

/** The body of a webhook delivery, exactly the specification's envelope. */
export interface WebhookEnvelope {
  /** The webhook event type. */
  readonly event: WebhookEventType;
  /** When the change happened, ISO 8601 UTC. */
  readonly timestamp: string;
  readonly data: WebhookEventData;
  readonly metadata: {
    readonly companyId: string;
    /** Unique per webhook event and stable across retries and replays: receivers de-duplicate on it. */
    readonly eventId: string;
    /** Origin of the change: `api`, `cli`, `system`. */
    readonly source: EventSource;
  };
}

/**
 * The delivery body of a derived webhook event. Built in a fixed key order, so
 * that `JSON.stringify` of it (what is signed and sent) is the same bytes on every
 * attempt and replay.
 */
export const toEnvelope = (derived: DerivedWebhookEvent): WebhookEnvelope => ({
  event: derived.type,
  timestamp: derived.timestamp,
  data: derived.data,
  metadata: { companyId: derived.companyId, eventId: derived.eventId, source: derived.source },
});
