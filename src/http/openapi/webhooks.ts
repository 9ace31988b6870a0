import { withIdempotency } from './idempotency.js';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhooks/eventTypes.js';
import { MAX_FILTER_TAGS, MAX_FILTER_TAG_LENGTH } from '../../domain/webhooks/webhookFilters.js';
import { MAX_TARGET_URL_LENGTH } from '../../domain/webhooks/subscriptionInput.js';
import {
  authenticated,
  badMinLogPosition,
  bodyErrors,
  errorCase,
  idParameter,
  itemEnvelope,
  json,
  jsonResponse,
  limitParameter,
  listEnvelope,
  minLogPosition,
  pageParameter,
  nullable,
  schemaRef,
  validationFailed,
  writePositionHeaders,
  type ApiModule,
} from './common.js';
import type { OperationObject } from './types.js';

/** `/webhooks`: REST-hook subscriptions (subscribe, unsubscribe, list). */

const SUBSCRIBE_DESCRIPTION = `
Subscribes \`target_url\` to one event type. Deliveries are HTTP POSTs of the event
to the target URL, signed with the subscription's **secret**, which this response
returns **once**: it is never shown again (not by \`GET /webhooks\`, not in any log),
so store it now. A lost secret means subscribing again.

**Permissions.** \`webhooks:write\`, and also the read permission of the event type's
resource, since deliveries carry its records: \`contacts:read\` for \`contact.*\`,
\`deals:read\` for \`deal.*\`. The 403 names the missing one in \`requiredPermission\`.

**Target URL.** \`http\` or \`https\` (HTTPS recommended), without a user name or
password, at most ${MAX_TARGET_URL_LENGTH} characters. Unless the server runs with
\`WEBHOOK_ALLOW_PRIVATE_TARGETS=true\` (development), the host must be public: loopback,
private (RFC 1918, \`fc00::/7\`), link-local, shared (\`100.64.0.0/10\`), unspecified,
multicast, broadcast, reserved and cloud-metadata addresses are refused in every
spelling (\`127.1\`, \`0x7f.0.0.1\`, \`2130706433\`, \`[::ffff:127.0.0.1]\`, NAT64, …), and
so are \`localhost\` and host names that resolve to any such address, or do not
resolve. A refused URL is a 422 with \`details.target_url\`. The URL is stored and
returned in its canonical form (\`HTTPS://Hooks.Example.com\` → \`https://hooks.example.com/\`).

**Filters.** Optional, for \`contact.*\` event types only: \`{"tags": [...]}\`
(1–${MAX_FILTER_TAGS} tags, each trimmed to 1–${MAX_FILTER_TAG_LENGTH} characters, duplicates
dropped) delivers only events whose contact carries at least one of the tags (compared
exactly, case-sensitive). Any other filter key, or tag filters on a \`deal.*\` event type
(deals have no tags), is a 422 with \`details.filters\`.
`.trim();

const webhookNotFound = jsonResponse(
  'No active webhook subscription with this id in the caller\'s company (unknown, another company\'s, or already unsubscribed): `Webhook subscription not found`.',
  'WebhookNotFoundError',
  'authenticated',
);

const subscriptionOrDeliveryNotFound = jsonResponse(
  'No webhook subscription with this id in the caller\'s company (`Webhook subscription not found`), or no delivery of it with this event id (`Delivery not found`).',
  'WebhookDeliveryNotFoundError',
  'authenticated',
);

const unsubscribed = jsonResponse('The subscription ended; it receives no more deliveries.', 'WebhookUnsubscribeResponse', 'authenticated', writePositionHeaders(true));

/** The subscribe operation's 403 names either missing permission. */
const withResourcePermission = (operation: OperationObject): OperationObject => ({
  ...operation,
  responses: {
    ...operation.responses,
    '403': jsonResponse(
      'The API key lacks `webhooks:write`, or the read permission of the event type\'s resource ' +
        '(`contacts:read` for `contact.*`, `deals:read` for `deal.*`); `requiredPermission` names the missing one.',
      'ForbiddenError',
      'authenticated',
    ),
  },
});

const UNSUBSCRIBE_NOTE =
  'The subscription stops receiving deliveries and its secret is deleted. An unknown id, another company\'s, ' +
  'or one already unsubscribed is a 404.';

export const webhooks: ApiModule = {
  tags: [{ name: 'Webhooks', description: 'REST-hook subscriptions to events (for Zapier, Make and other integrations).' }],
  paths: {
    '/webhooks': {
      get: authenticated('webhooks:read', {
        operationId: 'listWebhooks',
        tags: ['Webhooks'],
        summary: 'List active webhook subscriptions',
        description: 'The caller company\'s active subscriptions, oldest first (creation order). Secrets are never listed.',
        parameters: [minLogPosition],
        responses: {
          '200': jsonResponse('The active subscriptions.', 'WebhookList', 'authenticated'),
          '400': badMinLogPosition(),
        },
      }),
    },
    '/webhooks/subscribe': {
      post: withIdempotency(withResourcePermission(
        authenticated('webhooks:write', {
          operationId: 'subscribeWebhook',
          tags: ['Webhooks'],
          summary: 'Subscribe to an event type',
          description: SUBSCRIBE_DESCRIPTION,
          requestBody: { required: true, content: json(schemaRef('WebhookSubscribeRequest')) },
          responses: {
            '201': jsonResponse(
              'The new subscription, with its signing secret (shown only here).',
              'WebhookSubscribeResponse',
              'authenticated',
              writePositionHeaders(true),
            ),
            ...bodyErrors,
            '422': validationFailed(
              '`event` or `target_url` missing, an unknown event type (`details.event`), a malformed or refused target URL ' +
                '(`details.target_url`), or malformed filters (`details.filters`)',
            ),
          },
        }),
      )),
    },
    '/webhooks/unsubscribe': {
      delete: authenticated('webhooks:write', {
        operationId: 'unsubscribeWebhook',
        tags: ['Webhooks'],
        summary: 'Unsubscribe (id in the body)',
        description: `A JSON body on a DELETE request, as REST hooks use it. ${UNSUBSCRIBE_NOTE} Clients that cannot send a DELETE body use \`DELETE /webhooks/{id}\`.`,
        requestBody: { required: true, content: json(schemaRef('WebhookUnsubscribeRequest')) },
        responses: {
          '200': unsubscribed,
          ...bodyErrors,
          '404': webhookNotFound,
          '422': validationFailed('`subscription_id` missing or not a string'),
        },
      }),
    },
    '/webhooks/{id}/deliveries': {
      get: authenticated('webhooks:read', {
        operationId: 'listWebhookDeliveries',
        tags: ['Webhooks'],
        summary: 'Deliveries of a subscription',
        description:
          'Every delivery of the subscription, newest first: the event, its state (`pending`, `delivered`, `failed`), ' +
          'each attempt with its status code or error and latency, the next retry and why it failed. Ended subscriptions ' +
          'keep their history. The log goes back `WEBHOOK_LOG_RETENTION_DAYS` (the server\'s setting, default 30) days: a ' +
          'delivered or failed delivery is pruned that long after it became final; pending deliveries are always listed.',
        parameters: [idParameter('subscription'), pageParameter, limitParameter, minLogPosition],
        responses: {
          '200': jsonResponse('The deliveries, newest first.', listEnvelope('WebhookDelivery'), 'authenticated'),
          '400': badMinLogPosition(),
          '404': subscriptionOrDeliveryNotFound,
          '422': validationFailed('`page` or `limit` out of range'),
        },
      }),
    },
    '/webhooks/{id}/redeliver': {
      post: authenticated('webhooks:write', {
        operationId: 'redeliverWebhook',
        tags: ['Webhooks'],
        summary: 'Send deliveries again',
        description:
          'Queues one delivered or failed event again (`eventId`), or every failed one whose event occurred at or after ' +
          '`failedSince`. Redeliveries keep their event ids (`webhook-id`) and bodies, and take their place in the ' +
          "subscription's order. A delivery that is already queued is left as it is (`requeued: 0`). Only deliveries " +
          'still in the delivery log (see `GET /webhooks/{id}/deliveries`) can be sent again.',
        parameters: [idParameter('subscription')],
        requestBody: { required: true, content: json(schemaRef('WebhookRedeliverRequest')) },
        responses: {
          '200': jsonResponse('What was queued again.', 'WebhookRedeliverResponse', 'authenticated'),
          ...bodyErrors,
          '404': subscriptionOrDeliveryNotFound,
          '409': jsonResponse('The subscription has ended.', 'WebhookNotActiveError', 'authenticated'),
          '422': validationFailed('neither or both of `eventId` and `failedSince`, or a bad `failedSince`'),
        },
      }),
    },
    '/webhooks/{id}': {
      delete: authenticated('webhooks:write', {
        operationId: 'deleteWebhook',
        tags: ['Webhooks'],
        summary: 'Unsubscribe (id in the path)',
        description: `The same as \`DELETE /webhooks/unsubscribe\`, for clients that drop DELETE bodies. ${UNSUBSCRIBE_NOTE}`,
        parameters: [idParameter('subscription')],
        responses: {
          '200': unsubscribed,
          ...bodyErrors,
          '404': webhookNotFound,
        },
      }),
    },
  },
  schemas: {
    WebhookEventType: {
      type: 'string',
      enum: [...WEBHOOK_EVENT_TYPES],
      description: 'What a subscription listens to.',
    },
    WebhookFilters: {
      type: 'object',
      required: ['tags'],
      additionalProperties: false,
      properties: {
        tags: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_FILTER_TAGS,
          items: { type: 'string', minLength: 1, maxLength: MAX_FILTER_TAG_LENGTH },
          description: 'Contact tags (trimmed; duplicates dropped).',
        },
      },
    },
    WebhookSubscribeRequest: {
      type: 'object',
      description: 'Unknown fields are ignored.',
      required: ['event', 'target_url'],
      properties: {
        event: schemaRef('WebhookEventType'),
        target_url: { type: 'string', format: 'uri', maxLength: MAX_TARGET_URL_LENGTH, examples: ['https://hooks.example.com/chronicle'] },
        filters: { ...nullable(schemaRef('WebhookFilters')), description: 'Optional; `null` or absent: every event of the type.' },
      },
    },
    WebhookSubscriptionCreated: {
      type: 'object',
      required: ['id', 'subscription_id', 'event', 'target_url', 'created_at', 'secret'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', description: 'Server-assigned (a UUID).' },
        subscription_id: { type: 'string', description: 'The same as `id`.' },
        event: schemaRef('WebhookEventType'),
        target_url: { type: 'string', format: 'uri', description: 'The target URL in canonical form.' },
        created_at: schemaRef('Timestamp'),
        secret: {
          type: ['string', 'null'],
          pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
          description:
            'The signing secret of this subscription: `whsec_` + base64 of 32 random bytes. Returned only in this response ' +
            '(and in its replays for the same `Idempotency-Key`, read back from the secret store); deliveries are signed ' +
            'with it. Null only in a replay after the subscription ended (its secret is deleted then).',
        },
      },
    },
    WebhookSubscribeResponse: itemEnvelope('WebhookSubscriptionCreated'),
    WebhookListItem: {
      type: 'object',
      required: ['id', 'subscription_id', 'event_type', 'target_url', 'is_active', 'created_at'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        subscription_id: { type: 'string', description: 'The same as `id`.' },
        event_type: schemaRef('WebhookEventType'),
        target_url: { type: 'string', format: 'uri' },
        is_active: { const: true, description: 'Always true: only active subscriptions are listed.' },
        created_at: schemaRef('Timestamp'),
      },
    },
    WebhookList: {
      type: 'object',
      required: ['success', 'data'],
      additionalProperties: false,
      properties: { success: { const: true }, data: { type: 'array', items: schemaRef('WebhookListItem') } },
    },
    WebhookUnsubscribeRequest: {
      type: 'object',
      required: ['subscription_id'],
      properties: { subscription_id: { type: 'string', minLength: 1 } },
    },
    WebhookUnsubscribeResponse: {
      type: 'object',
      required: ['success', 'message'],
      additionalProperties: false,
      properties: { success: { const: true }, message: { type: 'string' } },
    },
    WebhookNotFoundError: errorCase({ const: 'Webhook subscription not found' }),
    WebhookDeliveryNotFoundError: errorCase({ enum: ['Webhook subscription not found', 'Delivery not found'] }),
    WebhookNotActiveError: errorCase({ const: 'Webhook subscription is not active' }),
    WebhookDeliveryAttempt: {
      type: 'object',
      required: ['at', 'statusCode', 'error', 'latencyMs'],
      additionalProperties: false,
      properties: {
        at: schemaRef('Timestamp'),
        statusCode: nullable({ type: 'integer' }),
        error: nullable({ type: 'string' }),
        latencyMs: { type: 'number', minimum: 0 },
      },
    },
    WebhookDelivery: {
      type: 'object',
      required: ['eventId', 'event', 'occurredAt', 'state', 'attempts', 'nextAttemptAt', 'completedAt', 'failureReason'],
      additionalProperties: false,
      properties: {
        eventId: { type: 'string', description: '`metadata.eventId` and the `webhook-id` header of every attempt.' },
        event: schemaRef('WebhookEventType'),
        occurredAt: schemaRef('Timestamp'),
        state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
        attempts: { type: 'array', items: schemaRef('WebhookDeliveryAttempt') },
        nextAttemptAt: nullable(schemaRef('Timestamp')),
        completedAt: nullable(schemaRef('Timestamp')),
        failureReason: nullable({ type: 'string', enum: ['retries_exhausted', 'gone', 'unsubscribed'] }),
      },
    },
    WebhookRedeliverRequest: {
      oneOf: [
        { type: 'object', required: ['eventId'], additionalProperties: false, properties: { eventId: { type: 'string', minLength: 1 } } },
        {
          type: 'object',
          required: ['failedSince'],
          additionalProperties: false,
          properties: { failedSince: { type: 'string', description: 'ISO 8601 date, or date-time with a zone.' } },
        },
      ],
    },
    WebhookRedeliverResponse: {
      type: 'object',
      required: ['success', 'message', 'data'],
      additionalProperties: false,
      properties: {
        success: { const: true },
        message: { type: 'string' },
        data: { type: 'object', required: ['requeued'], additionalProperties: false, properties: { requeued: { type: 'integer', minimum: 0 } } },
      },
    },
  },
};
