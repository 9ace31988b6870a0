import { webhookDecider } from '../domain/webhookDecider.js';
import {
  WebhookDisabled,
  WebhookEnabled,
  WebhookEndedByImport,
  WebhookEvent,
  WebhookPaused,
  WebhookSecretRotated,
  WebhookSubscribed,
  WebhookUnsubscribed,
  webhookStream,
} from '../domain/webhookEvents.js';
import { WebhookSubscribedV1, upcastWebhookSubscribedV1 } from '../domain/webhookEventVersions.js';
import * as E from 'fp-ts/lib/Either.js';
import { storedAs, storedEventType, type UpcastStep } from '../../../application/versioning/storedEventTypes.js';
import { companyInData, describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** WebhookSubscribed v1 → v2: the same subscription (version 2 only names more types). */
const webhookSubscribedV1toV2: UpcastStep = async (event) => E.right(upcastWebhookSubscribedV1(storedAs(WebhookSubscribedV1, event)).data);

/** A webhook subscription of a company, and the state of its deliveries: `webhook-<id>`. */
export const webhookAggregate = describeAggregate({
  name: 'webhook',
  streamPrefix: webhookStream(''),
  eventCodec: WebhookEvent,
  decider: webhookDecider,
  storedEvents: [
    storedEventType('WebhookSubscribed', [WebhookSubscribedV1, WebhookSubscribed], [webhookSubscribedV1toV2]),
    storedEventType('WebhookUnsubscribed', [WebhookUnsubscribed]),
    storedEventType('WebhookPaused', [WebhookPaused]),
    storedEventType('WebhookDisabled', [WebhookDisabled]),
    storedEventType('WebhookEnabled', [WebhookEnabled]),
    storedEventType('WebhookEndedByImport', [WebhookEndedByImport]),
    storedEventType('WebhookSecretRotated', [WebhookSecretRotated]),
  ],
  // GET /webhooks/:id/history: the subscription's own events (paused, disabled, enabled …), ended ones included.
  history: { streamOf: webhookStream, companyOf: companyInData(WebhookEvent) },
});
