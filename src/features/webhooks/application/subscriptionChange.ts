import * as E from 'fp-ts/lib/Either.js';
import type { RecordedEvent } from '../../../application/ports/EventStore.js';
import type { SubscriptionChange } from '../../../webhooks/fanOut.js';
import { WebhookEndedByImport, WebhookSubscribed, WebhookUnsubscribed } from '../domain/webhookEvents.js';

/**
 * What a stored event says of the subscriptions, for the webhook fan-out: a
 * `WebhookSubscribed`, `WebhookUnsubscribed` or `WebhookEndedByImport` decoded, `malformed` when one does
 * not decode, null for every other event (pauses, enablings and the events of other
 * streams change nothing the fan-out keeps).
 */
export const subscriptionChange = (event: RecordedEvent): SubscriptionChange | null => {
  switch (event.type) {
    case 'WebhookSubscribed': {
      const decoded = WebhookSubscribed.decode({ type: event.type, data: event.data });
      if (E.isLeft(decoded)) return { kind: 'malformed' };
      const { subscriptionId, companyId, event: type, targetUrl, filters } = decoded.right.data;
      return { kind: 'subscribed', subscriptionId, companyId, event: type, targetUrl, filters };
    }
    case 'WebhookUnsubscribed': {
      const decoded = WebhookUnsubscribed.decode({ type: event.type, data: event.data });
      return E.isLeft(decoded) ? { kind: 'malformed' } : { kind: 'unsubscribed', subscriptionId: decoded.right.data.subscriptionId };
    }
    case 'WebhookEndedByImport': {
      const decoded = WebhookEndedByImport.decode({ type: event.type, data: event.data });
      return E.isLeft(decoded) ? { kind: 'malformed' } : { kind: 'unsubscribed', subscriptionId: decoded.right.data.subscriptionId };
    }
    default:
      return null;
  }
};
