import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { WEBHOOK_SUBSCRIPTION_EVENT_TYPES, WebhookEvent } from '../domain/webhookEvents.js';
import {
  subscriptionFromSubscribed,
  toSubscriptionView,
  type WebhookSubscriptionView,
} from '../domain/webhookSubscription.js';
import type { Position } from '../../../shared/Position.js';
import { erasedWithCompany } from '../../companies/index.js';

/**
 * A webhook subscription in the read model, active or ended (`isActive` false):
 * the view is nested under `subscription`, apart from the document's own fields.
 * No secret: it lives in the webhook secret store only.
 */
export interface WebhookDoc extends ReadModelDocument {
  readonly id: string;
  readonly companyId: string;
  readonly position: Position;
  readonly subscription: WebhookSubscriptionView;
}

/**
 * The subscription of a document. Documents projected before deliveries could be
 * paused lack the delivery status: theirs is `active`.
 */
const BEFORE_DELIVERY_STATUS: Pick<WebhookSubscriptionView, 'deliveryStatus' | 'failingSince'> = { deliveryStatus: 'active', failingSince: null };
export const subscriptionOf = (doc: WebhookDoc): WebhookSubscriptionView => ({ ...BEFORE_DELIVERY_STATUS, ...doc.subscription });

/** The document with its subscription's delivery status changed (and the position of the event that changed it). */
const withDelivery = (
  doc: WebhookDoc | null,
  position: Position,
  change: Pick<WebhookSubscriptionView, 'deliveryStatus' | 'failingSince'>,
): WebhookDoc | null => doc && { ...doc, position, subscription: { ...subscriptionOf(doc), ...change } };

/** Decoded once per stored event: `targets` and `evolve` see the same event. */
const decode = cachedDecoder(WebhookEvent);

/**
 * The `webhooks` read model: one document per subscription, under its company, in
 * creation order. An unsubscribed one stays, inactive (lists ask for active ones),
 * so its history is still there to show.
 */
export const webhooksProjection: Projection<WebhookDoc> = erasedWithCompany({
  name: 'webhooks',
  eventTypes: WEBHOOK_SUBSCRIPTION_EVENT_TYPES,
  indexes: [['subscription.event'], ['subscription.isActive']],
  targets(event) {
    const { data } = decode(event);
    return [{ kind: 'id', companyId: data.companyId, id: data.subscriptionId }];
  },
  evolve(doc, event) {
    const decoded = decode(event);
    switch (decoded.type) {
      case 'WebhookSubscribed': {
        if (doc) return doc;
        const record = subscriptionFromSubscribed(decoded);
        return { id: record.id, companyId: record.companyId, position: event.position, subscription: toSubscriptionView(record) };
      }
      case 'WebhookUnsubscribed':
      case 'WebhookEndedByImport':
        return doc && { ...doc, position: event.position, subscription: { ...doc.subscription, isActive: false } };
      case 'WebhookPaused':
        return withDelivery(doc, event.position, { deliveryStatus: 'paused', failingSince: decoded.data.failingSince });
      case 'WebhookDisabled':
        return withDelivery(doc, event.position, { deliveryStatus: 'disabled', failingSince: decoded.data.failingSince });
      case 'WebhookEnabled':
        return withDelivery(doc, event.position, { deliveryStatus: 'active', failingSince: null });
      case 'WebhookSecretRotated':
        // Nothing the read model shows changes (the secrets are not in it).
        return doc && { ...doc, position: event.position };
      default: {
        const unknown: never = decoded;
        return unknown;
      }
    }
  },
});
