import * as t from 'io-ts';
import { WebhookFilters } from './webhookFilters.js';

/**
 * The webhook event types a stored `WebhookSubscribed` may name: part of its
 * stored schema, frozen with it as every stored schema is. The live list is the
 * catalogue the features declare; its types must all be among these
 * (`storableEventTypes` refuses otherwise), so a new webhook event type comes with
 * a new version of `WebhookSubscribed`. Version 2 added the deletes, restores and
 * erasures of contacts and deals (version 1: `webhookEventVersions.ts`).
 */
export const StoredWebhookEventType = t.keyof(
  {
    'contact.created': null,
    'contact.updated': null,
    'contact.deleted': null,
    'contact.restored': null,
    'contact.erased': null,
    'deal.created': null,
    'deal.updated': null,
    'deal.stage_changed': null,
    'deal.won': null,
    'deal.lost': null,
    'deal.deleted': null,
    'deal.restored': null,
  },
  'WebhookEventType',
);
export type StoredWebhookEventType = t.TypeOf<typeof StoredWebhookEventType>;

/** The catalogue's types, refused at start when one is not a type a stored subscription may name. */
export const storableEventTypes = (types: readonly string[]): readonly string[] => {
  const unstorable = types.filter((type) => !StoredWebhookEventType.is(type));
  if (unstorable.length > 0) {
    throw new Error(`webhook event types ${unstorable.join(', ')} need a new version of WebhookSubscribed to be subscribed to`);
  }
  return types;
};

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
    event: StoredWebhookEventType,
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

/**
 * The dispatcher paused deliveries to a receiver that kept failing: a delivery
 * used up its retries while every attempt since `failingSince` failed. Its events
 * keep being queued; the dispatcher tries the receiver again now and then, and
 * resumes on its own at the first 200 (`WebhookEnabled`, `recovered`). Recorded
 * by the system.
 */
export const WebhookPaused = t.type({
  type: t.literal('WebhookPaused'),
  data: t.type({
    subscriptionId: t.string,
    companyId: t.string,
    /** The first failed attempt since the last delivery (ISO 8601 UTC with milliseconds). */
    failingSince: t.string,
    /** ISO 8601 UTC with milliseconds. */
    at: t.string,
  }),
});
export type WebhookPaused = t.TypeOf<typeof WebhookPaused>;

/**
 * The dispatcher stopped trying a receiver that failed every attempt for the
 * documented time (`WEBHOOK_DISABLE_AFTER_MS`). Its events keep being queued, and
 * are delivered in order once the company enables it again. Recorded by the system.
 */
export const WebhookDisabled = t.type({
  type: t.literal('WebhookDisabled'),
  data: t.type({
    subscriptionId: t.string,
    companyId: t.string,
    failingSince: t.string,
    at: t.string,
  }),
});
export type WebhookDisabled = t.TypeOf<typeof WebhookDisabled>;

/**
 * Why deliveries to a paused or disabled subscription go on: the company enabled
 * it (`client`), or the receiver answered 200 to a delivery made while it was
 * paused (`recovered`).
 */
export const EnableReason = t.keyof({ client: null, recovered: null }, 'EnableReason');
export type EnableReason = t.TypeOf<typeof EnableReason>;

/** Deliveries to a paused or disabled subscription go on, in order, from its oldest pending event. */
export const WebhookEnabled = t.type({
  type: t.literal('WebhookEnabled'),
  data: t.type({
    subscriptionId: t.string,
    companyId: t.string,
    reason: EnableReason,
    at: t.string,
  }),
});
export type WebhookEnabled = t.TypeOf<typeof WebhookEnabled>;

/**
 * The subscription came in with an imported company (`chronicle companies import`):
 * the export holds no signing secret, so it ended there, and receives nothing. It
 * is never active again; the company subscribes anew for a new secret. Recorded by
 * the system, after the subscription's imported events.
 */
export const WebhookEndedByImport = t.type({
  type: t.literal('WebhookEndedByImport'),
  data: t.type({
    subscriptionId: t.string,
    companyId: t.string,
    /** ISO 8601 UTC with milliseconds. */
    at: t.string,
  }),
});
export type WebhookEndedByImport = t.TypeOf<typeof WebhookEndedByImport>;

/**
 * The company rotated the subscription's signing secret: deliveries are signed with a
 * new one, and with the previous one too until `previousSecretExpiresAt` (Standard
 * Webhooks' rotation: one signature per secret). Neither secret is in the event: they
 * live in the webhook secret store only.
 */
export const WebhookSecretRotated = t.type({
  type: t.literal('WebhookSecretRotated'),
  data: t.type({
    subscriptionId: t.string,
    companyId: t.string,
    /** Hours the previous secret still signs (0: not at all). */
    overlapHours: t.number,
    /** When the previous secret stops signing (ISO 8601 UTC with milliseconds; `at` when the overlap is 0). */
    previousSecretExpiresAt: t.string,
    /** ISO 8601 UTC with milliseconds. */
    at: t.string,
  }),
});
export type WebhookSecretRotated = t.TypeOf<typeof WebhookSecretRotated>;

/** Every event of a `webhook-<id>` stream. */
export const WebhookEvent = t.union([
  WebhookSubscribed,
  WebhookUnsubscribed,
  WebhookPaused,
  WebhookDisabled,
  WebhookEnabled,
  WebhookEndedByImport,
  WebhookSecretRotated,
]);
export type WebhookEvent = t.TypeOf<typeof WebhookEvent>;

export const WEBHOOK_SUBSCRIPTION_EVENT_TYPES: ReadonlySet<WebhookEvent['type']> = new Set([
  'WebhookSubscribed',
  'WebhookUnsubscribed',
  'WebhookPaused',
  'WebhookDisabled',
  'WebhookEnabled',
  'WebhookEndedByImport',
  'WebhookSecretRotated',
]);

export const webhookStream = (subscriptionId: string): string => `webhook-${subscriptionId}`;
