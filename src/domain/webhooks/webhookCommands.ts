import type { WebhookEventType } from './eventTypes.js';
import type { UnsubscribeReason } from './webhookEvents.js';
import type { WebhookFilters } from './webhookFilters.js';

/**
 * Subscribe `targetUrl` (already checked by the target-URL guard) to `event`,
 * under a server-assigned id. `at` becomes createdAt.
 */
export interface SubscribeWebhook {
  readonly type: 'SubscribeWebhook';
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly event: WebhookEventType;
  readonly targetUrl: string;
  readonly filters: WebhookFilters;
  readonly at: Date;
}

/** End a subscription of `companyId` (another company's subscription is not found). */
export interface UnsubscribeWebhook {
  readonly type: 'UnsubscribeWebhook';
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly reason: UnsubscribeReason;
  readonly at: Date;
}

export type WebhookCommand = SubscribeWebhook | UnsubscribeWebhook;
