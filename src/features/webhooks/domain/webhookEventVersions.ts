import * as t from 'io-ts';
import { WebhookFilters } from './webhookFilters.js';
import type { WebhookSubscribed } from './webhookEvents.js';

/*
 * Earlier versions of the subscription's stored events, and the upcasters that
 * read them as the current version. A released version's codec never changes: a
 * new shape is a new version (see docs/contributors/changing-an-event.md).
 *
 *   WebhookSubscribed  v1: one of the seven types of contacts and deals created, updated, staged, won, lost
 *                          (releases up to 283063c)
 *                      v2 (current): v1's types, and the deletes, restores and erasures of contacts and deals
 */

/** The webhook event types a `WebhookSubscribed` version 1 may name. */
const WebhookEventTypeV1 = t.keyof(
  {
    'contact.created': null,
    'contact.updated': null,
    'deal.created': null,
    'deal.updated': null,
    'deal.stage_changed': null,
    'deal.won': null,
    'deal.lost': null,
  },
  'WebhookEventType',
);

/** `WebhookSubscribed` version 1. */
export const WebhookSubscribedV1 = t.type({
  type: t.literal('WebhookSubscribed'),
  data: t.type({
    subscriptionId: t.string,
    companyId: t.string,
    event: WebhookEventTypeV1,
    targetUrl: t.string,
    filters: WebhookFilters,
    /** ISO 8601 UTC with milliseconds. */
    createdAt: t.string,
  }),
});
export type WebhookSubscribedV1 = t.TypeOf<typeof WebhookSubscribedV1>;

/** `WebhookSubscribed` v1 → v2: every type of version 1 is one of version 2, so the event reads as it is. */
export const upcastWebhookSubscribedV1 = (event: WebhookSubscribedV1): WebhookSubscribed => event;
