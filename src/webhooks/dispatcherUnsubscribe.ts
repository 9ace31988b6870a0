import { handleCommand } from '../application/handleCommand.js';
import type { EventStore } from '../application/ports/EventStore.js';
import { webhookDecider } from '../domain/webhooks/webhookDecider.js';
import { WebhookEvent, webhookStream } from '../domain/webhooks/webhookEvents.js';
import type { Clock } from '../shared/Clock.js';
import type { WebhookDispatcherDeps } from './dispatcher.js';

export interface UnsubscribeGoneDeps {
  readonly eventStore: EventStore;
  readonly newId: () => string;
  readonly clock: Clock;
  /** The signing secrets: the ended subscription's one is deleted, as a client unsubscribe does. */
  readonly secrets?: { delete(subscriptionId: string): Promise<void> };
}

/**
 * The dispatcher's `unsubscribe`: a receiver answered 410 Gone, so the
 * subscription ends through the domain (`UnsubscribeWebhook {reason: 'gone'}` →
 * `WebhookUnsubscribed`), recorded as caused by the system. A subscription that
 * has already ended (or is unknown) is not an error: a 410 can be seen again
 * after a restart.
 */
export const unsubscribeGone =
  (deps: UnsubscribeGoneDeps): WebhookDispatcherDeps['unsubscribe'] =>
  async (subscriptionId, companyId) => {
    const correlationId = deps.newId();
    // A left is an unknown or already ended subscription: nothing more to end.
    await handleCommand(
      { eventStore: deps.eventStore, newId: deps.newId },
      {
        decider: webhookDecider,
        eventCodec: WebhookEvent,
        stream: webhookStream(subscriptionId),
        command: { type: 'UnsubscribeWebhook', subscriptionId, companyId, reason: 'gone', at: deps.clock.now() },
        metadata: { source: 'system', correlationId, companyId },
      },
    );
    await deps.secrets?.delete(subscriptionId);
  };
