import { webhookDecider } from '../../domain/webhooks/webhookDecider.js';
import { WebhookEvent, WebhookSubscribed, WebhookUnsubscribed, webhookStream } from '../../domain/webhooks/webhookEvents.js';
import { storedEventType } from '../versioning/storedEventTypes.js';
import { describeAggregate } from './AggregateDescriptor.js';

/** A webhook subscription of a company: `webhook-<id>`. */
export const webhookAggregate = describeAggregate({
  name: 'webhook',
  streamPrefix: webhookStream(''),
  eventCodec: WebhookEvent,
  decider: webhookDecider,
  storedEvents: [storedEventType('WebhookSubscribed', [WebhookSubscribed]), storedEventType('WebhookUnsubscribed', [WebhookUnsubscribed])],
});
