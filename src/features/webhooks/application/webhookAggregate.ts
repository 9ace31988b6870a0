import { webhookDecider } from '../domain/webhookDecider.js';
import {
  WebhookDisabled,
  WebhookEnabled,
  WebhookEvent,
  WebhookPaused,
  WebhookSubscribed,
  WebhookUnsubscribed,
  webhookStream,
} from '../domain/webhookEvents.js';
import { storedEventType } from '../../../application/versioning/storedEventTypes.js';
import { companyInData, describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** A webhook subscription of a company, and the state of its deliveries: `webhook-<id>`. */
export const webhookAggregate = describeAggregate({
  name: 'webhook',
  streamPrefix: webhookStream(''),
  eventCodec: WebhookEvent,
  decider: webhookDecider,
  storedEvents: [
    storedEventType('WebhookSubscribed', [WebhookSubscribed]),
    storedEventType('WebhookUnsubscribed', [WebhookUnsubscribed]),
    storedEventType('WebhookPaused', [WebhookPaused]),
    storedEventType('WebhookDisabled', [WebhookDisabled]),
    storedEventType('WebhookEnabled', [WebhookEnabled]),
  ],
  // GET /webhooks/:id/history: the subscription's own events (paused, disabled, enabled …), ended ones included.
  history: { streamOf: webhookStream, companyOf: companyInData(WebhookEvent) },
});
