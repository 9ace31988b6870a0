import * as t from 'io-ts';
import { WebhookEventType } from './eventTypes.js';
import { WebhookFilters } from './webhookFilters.js';

/**
 * A company subscribed `targetUrl` to an event type. The target URL passed the
 * target-URL guard when the event was written. The signing secret is never part
 * of an event (it lives in the webhook secret store only).
 */
export const WebhookSubscribed = t.type({
  type: t.literal('WebhookSubscribed'),
  data: t.type({
    subscriptionId: t.string,
    companyId: t.string,
    event: WebhookEventType,
    targetUrl: t.string,
    filters: WebhookFilters,
    /** ISO 8601 UTC with milliseconds. */
    createdAt: t.string,
  }),
});
export type WebhookSubscribed = t.TypeOf<typeof WebhookSubscribed>;

/**
 * Why a subscription ended: the client unsubscribed (`client`), or the receiver
 * answered 410 Gone to a delivery (`gone`, the REST-hook convention).
 */
export const UnsubscribeReason = t.keyof({ client: null, gone: null }, 'UnsubscribeReason');
export type UnsubscribeReason = t.TypeOf<typeof UnsubscribeReason>;

/** The subscription ended; it receives nothing more and is never active again. */
export const WebhookUnsubscribed = t.type({
  type: t.literal('WebhookUnsubscribed'),
  data: t.type({
    subscriptionId: t.string,
    companyId: t.string,
    reason: UnsubscribeReason,
    /** ISO 8601 UTC with milliseconds. */
    at: t.string,
  }),
});
export type WebhookUnsubscribed = t.TypeOf<typeof WebhookUnsubscribed>;

/** Every event of a `webhook-<id>` stream. */
export const WebhookEvent = t.union([WebhookSubscribed, WebhookUnsubscribed]);
export type WebhookEvent = t.TypeOf<typeof WebhookEvent>;

export const WEBHOOK_SUBSCRIPTION_EVENT_TYPES: ReadonlySet<WebhookEvent['type']> = new Set(['WebhookSubscribed', 'WebhookUnsubscribed']);

export const webhookStream = (subscriptionId: string): string => `webhook-${subscriptionId}`;
