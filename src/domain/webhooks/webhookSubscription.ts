import type { WebhookEventType } from './eventTypes.js';
import type { WebhookSubscribed } from './webhookEvents.js';
import type { WebhookFilters } from './webhookFilters.js';

/** A subscription as the read model keeps it (no secret: that lives in the secret store only). */
export interface WebhookSubscriptionView {
  readonly id: string;
  readonly event: WebhookEventType;
  readonly targetUrl: string;
  readonly filters: WebhookFilters;
  /** False once unsubscribed (by the client, or after a 410 from the receiver). */
  readonly isActive: boolean;
  readonly createdAt: string;
}

/** A subscription as its events define it: the aggregate's state and the source of every view. */
export interface WebhookSubscriptionRecord extends WebhookSubscriptionView {
  readonly companyId: string;
}

export const subscriptionFromSubscribed = ({ data }: WebhookSubscribed): WebhookSubscriptionRecord => ({
  id: data.subscriptionId,
  companyId: data.companyId,
  event: data.event,
  targetUrl: data.targetUrl,
  filters: data.filters,
  isActive: true,
  createdAt: data.createdAt,
});

export const toSubscriptionView = (record: WebhookSubscriptionRecord): WebhookSubscriptionView => ({
  id: record.id,
  event: record.event,
  targetUrl: record.targetUrl,
  filters: record.filters,
  isActive: record.isActive,
  createdAt: record.createdAt,
});
