import * as t from 'io-ts';
import type { WebhookEventType } from '../../webhookEvents/index.js';
import type { WebhookSubscribed } from './webhookEvents.js';
import type { WebhookFilters } from './webhookFilters.js';

/**
 * Whether deliveries go to a subscription: `active`; `paused` by the dispatcher
 * after its receiver kept failing (tried again now and then, resumed at the first
 * 200); `disabled` after failing for the documented time (until the company enables
 * it). Events are queued in every case.
 */
export const WebhookDeliveryStatus = t.keyof({ active: null, paused: null, disabled: null }, 'WebhookDeliveryStatus');
export type WebhookDeliveryStatus = t.TypeOf<typeof WebhookDeliveryStatus>;

/** A subscription as the read model keeps it (no secret: that lives in the secret store only). */
export interface WebhookSubscriptionView {
  readonly id: string;
  readonly event: WebhookEventType;
  readonly targetUrl: string;
  readonly filters: WebhookFilters;
  /** False once unsubscribed (by the client, or after a 410 from the receiver). */
  readonly isActive: boolean;
  readonly createdAt: string;
  readonly deliveryStatus: WebhookDeliveryStatus;
  /** While paused or disabled: the first failed attempt since the last delivery; else null. */
  readonly failingSince: string | null;
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
  deliveryStatus: 'active',
  failingSince: null,
});

export const toSubscriptionView = (record: WebhookSubscriptionRecord): WebhookSubscriptionView => ({
  id: record.id,
  event: record.event,
  targetUrl: record.targetUrl,
  filters: record.filters,
  isActive: record.isActive,
  createdAt: record.createdAt,
  deliveryStatus: record.deliveryStatus,
  failingSince: record.failingSince,
});
