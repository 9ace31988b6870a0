import type { EventStore } from '../../../application/ports/EventStore.js';
import type { WebhookOutbox } from '../../../application/ports/WebhookOutbox.js';
import type { WebhookEventCatalogue, WebhookEventType } from '../../webhookEvents/index.js';
import type { Clock } from '../../../shared/Clock.js';

/**
 * A test event's place among the webhook events one stored event derives (at
 * most one per type, so 0–6): after all of them, so it never goes before a real
 * event of the same position.
 */
const TEST_EVENT_ORDINAL = 999_999;

export interface SendTestEventDeps {
  readonly outbox: Pick<WebhookOutbox, 'enqueue'>;
  readonly eventStore: Pick<EventStore, 'headPosition'>;
  readonly newId: () => string;
  readonly clock: Clock;
  readonly wake?: () => void;
  /** The example record of each event type (the catalogue's). */
  readonly samples: Pick<WebhookEventCatalogue, 'sampleOf'>;
}

/**
 * Queues a test delivery to one subscription: its event type with the example
 * record of `GET /triggers/:type/sample` (ids `00000000-…`), `metadata.test:
 * true` and a new event id, signed and retried like any delivery, and shown in
 * its delivery log. It goes behind everything the log has queued for the
 * subscription so far (its place is the log's head), and records nothing in the
 * log: it is not a change of any record.
 */
export const sendTestEvent = async (
  deps: SendTestEventDeps,
  subscription: { readonly id: string; readonly companyId: string; readonly event: WebhookEventType },
): Promise<{ readonly eventId: string }> => {
  const eventId = deps.newId();
  const now = deps.clock.now();
  const timestamp = now.toISOString();
  const envelope = {
    event: subscription.event,
    timestamp,
    data: deps.samples.sampleOf(subscription.event).data,
    metadata: { companyId: subscription.companyId, eventId, source: 'console', test: true },
  };
  await deps.outbox.enqueue(
    [
      {
        subscriptionId: subscription.id,
        companyId: subscription.companyId,
        eventId,
        eventType: subscription.event,
        position: (await deps.eventStore.headPosition()) ?? '0',
        ordinal: TEST_EVENT_ORDINAL,
        occurredAt: timestamp,
        envelope: JSON.stringify(envelope),
      },
    ],
    now,
  );
  deps.wake?.();
  return { eventId };
};
