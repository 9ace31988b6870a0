import { unsubscribeWebhook } from './unsubscribeWebhook.js';
import type { WebhookCommandDeps } from './subscribeWebhook.js';
import type { WebhookDispatcherDeps } from '../../../webhooks/dispatcher.js';

/**
 * The dispatcher's `unsubscribe`: a receiver answered 410 Gone, so the
 * subscription ends through the domain (`UnsubscribeWebhook {reason: 'gone'}` →
 * `WebhookUnsubscribed`), recorded as caused by the system, and its secret is
 * forgotten. A subscription that has already ended (or is unknown) is not an
 * error: a 410 can be seen again after a restart.
 */
export const unsubscribeGone =
  (deps: WebhookCommandDeps): WebhookDispatcherDeps['unsubscribe'] =>
  async (subscriptionId, companyId) => {
    // A left is an unknown or already ended subscription: nothing more to end.
    await unsubscribeWebhook(deps, {
      subscriptionId,
      companyId,
      reason: 'gone',
      metadata: { source: 'system', correlationId: deps.newId(), companyId },
    });
  };
