import { withIdempotency } from '../../../http/openapi/idempotency.js';
import type { WebhookEventCatalogue } from '../../webhookEvents/index.js';
import { MAX_FILTER_TAGS, MAX_FILTER_TAG_LENGTH } from '../domain/webhookFilters.js';
import { MAX_TARGET_URL_LENGTH } from '../domain/subscriptionInput.js';
import {
  authenticated,
  badMinLogPosition,
  bodyErrors,
  errorCase,
  forbiddenOrSuspended,
  historyEvent,
  historyParameters,
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
} from '../../../http/openapi/common.js';
import type { JsonSchema, OperationObject } from '../../../http/openapi/types.js';

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
    '403': forbiddenOrSuspended(
      'The API key lacks `webhooks:write`, or the read permission of the event type\'s resource ' +
        '(`contacts:read` for `contact.*`, `deals:read` for `deal.*`); `requiredPermission` names the missing one.',
    ),
  },
});

const subscriptionLimit = jsonResponse(
  'The company already has `WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY` subscriptions (the server\'s setting, default 100; paused and ' +
    'disabled ones count, unsubscribed ones do not): `Webhook subscription limit reached`, with `code` ' +
    '`WEBHOOK_SUBSCRIPTION_LIMIT` and `details {limit, subscriptions}`. Unsubscribe one first.',
  'WebhookSubscriptionLimitError',
  'authenticated',
);

const ENABLE_DESCRIPTION = `
Deliveries to a subscription that the dispatcher **paused** (its receiver kept failing: it is
tried again now and then, and resumes by itself at its first 200) or **disabled** (failing for
\`WEBHOOK_DISABLE_AFTER_MS\`, 5 days by default: never tried until enabled) go on at once, from
its oldest pending event, in order: events were queued all along. Recorded in the log as
\`WebhookEnabled\` (reason \`client\`). Enabling an active subscription changes nothing and
answers 200 all the same. \`GET /webhooks\` shows each subscription's \`delivery_status\`. The body is
an empty JSON object (\`{}\`), sent with \`Content-Type: application/json\` as every POST is.
`.trim();

/** The `data` of a subscription's stored event: its ids, and `fields`. */
const historyData = (required: readonly string[], fields: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  required: ['subscriptionId', 'companyId', ...required],
  additionalProperties: false,
  properties: { subscriptionId: { type: 'string' }, companyId: { type: 'string' }, ...fields },
});

const ROTATE_DESCRIPTION = `
Rotates the subscription's signing secret, as Standard Webhooks defines it: this response
returns the **new secret, once** (it is never shown again), and from now on every delivery
is signed with it. For \`overlapHours\` (default 24, at most 168) the previous secret signs
every delivery too: \`webhook-signature\` then carries two signatures separated by a space,
the new secret's first (\`v1,<new> v1,<previous>\`), so a receiver that still checks with the
previous secret accepts them while it moves to the new one. After \`previousSecretExpiresAt\`
only the new secret signs. \`overlapHours: 0\` stops the previous secret at once (a leaked
secret). Rotating again during an overlap replaces the previous secret with the one being
replaced. Recorded in the log as \`WebhookSecretRotated\` (without either secret). Send \`{}\`
(with \`Content-Type: application/json\`, as every POST) for the default overlap.
`.trim();

const UNSUBSCRIBE_NOTE =
  'The subscription stops receiving deliveries and its secret is deleted. An unknown id, another company\'s, ' +
  'or one already unsubscribed is a 404.';

/** The shapes of a secret rotation, the same on the admin API. */
export const ROTATE_SECRET_SCHEMAS: Record<string, JsonSchema> = {
  WebhookRotateSecretRequest: {
    type: 'object',
    additionalProperties: false,
    properties: {
      overlapHours: { type: 'integer', minimum: 0, maximum: 168, default: 24, description: 'Hours the previous secret still signs.' },
    },
  },
  WebhookRotateSecretResponse: {
    type: 'object',
    required: ['success', 'data'],
    additionalProperties: false,
    properties: {
      success: { const: true },
      data: {
        type: 'object',
        required: ['id', 'secret', 'previousSecretExpiresAt'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', format: 'uuid' },
          secret: {
            type: 'string',
            pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
            description: 'The new signing secret: `whsec_` + base64 of 32 random bytes. Returned only in this response.',
          },
          previousSecretExpiresAt: { ...schemaRef('Timestamp'), description: 'When the previous secret stops signing deliveries.' },
        },
      },
    },
  },
};

/** The OpenAPI part of `/webhooks`, for the event types of `catalogue`. */
export const webhooksOpenApi = (catalogue: WebhookEventCatalogue): ApiModule => ({
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
            '409': subscriptionLimit,
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
    '/webhooks/{id}/deliveries/{eventId}': {
      get: authenticated('webhooks:read', {
        operationId: 'getWebhookDelivery',
        tags: ['Webhooks'],
        summary: 'One delivery, with every attempt in full',
        description:
          'The delivery of one event, as in the list, with each attempt in full: its `request` (the URL, every header ' +
          'sent, the signature headers too, and the body as sent) and its `response` (the status, the headers with ' +
          '`set-cookie` and `authorization` redacted, and the first 64 KiB of the body), or, without a response, why ' +
          '(`error`, and `errorKind`: `timeout`, `connection_refused`, `connection_reset`, `dns`, `tls`, `refused_address`, ' +
          '`invalid_target`, `no_secret`, `other`). Kept as long as the delivery log keeps the delivery. A person\'s ' +
          'erasure empties the responses of the deliveries that mention them (`response.erased`). Attempts recorded by ' +
          'releases before this one have `request` and `response` null.',
        parameters: [idParameter('subscription'), { name: 'eventId', in: 'path', required: true, schema: { type: 'string' } }, minLogPosition],
        responses: {
          '200': jsonResponse('The delivery.', itemEnvelope('WebhookDeliveryDetail'), 'authenticated'),
          '400': badMinLogPosition(),
          '404': subscriptionOrDeliveryNotFound,
        },
      }),
    },
    '/webhooks/{id}/rotate-secret': {
      post: authenticated('webhooks:write', {
        operationId: 'rotateWebhookSecret',
        tags: ['Webhooks'],
        summary: 'Rotate the signing secret',
        description: ROTATE_DESCRIPTION,
        parameters: [idParameter('subscription')],
        requestBody: { required: true, content: json(schemaRef('WebhookRotateSecretRequest')) },
        responses: {
          '200': jsonResponse('The new secret (shown only here), and when the previous one stops signing.', 'WebhookRotateSecretResponse', 'authenticated', writePositionHeaders(true)),
          ...bodyErrors,
          '404': webhookNotFound,
          '422': validationFailed('`overlapHours` not a whole number from 0 to 168 (`details.overlapHours`), or another field (named in `details`)'),
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
    '/webhooks/{id}/history': {
      get: authenticated('webhooks:read', {
        operationId: 'getWebhookHistory',
        tags: ['Webhooks'],
        summary: 'The stored events of a subscription',
        description:
          'Every event of the subscription, oldest first: subscribed, paused and disabled by the dispatcher (`metadata.source` ' +
          '`system`, with `failingSince`), enabled again (`reason` `recovered` by the system, `client` by the company), ' +
          'unsubscribed. Read from the event log itself. Ended subscriptions keep their history. Paginated like the lists.',
        parameters: [idParameter('subscription'), ...historyParameters, minLogPosition],
        responses: {
          '200': jsonResponse('A page of the subscription\'s events.', 'WebhookHistory', 'authenticated'),
          '400': badMinLogPosition(),
          '404': webhookNotFound,
          '422': validationFailed('`page` or `limit` is out of bounds or malformed'),
        },
      }),
    },
    '/webhooks/{id}/enable': {
      post: authenticated('webhooks:write', {
        operationId: 'enableWebhook',
        tags: ['Webhooks'],
        summary: 'Enable a paused or disabled subscription',
        description: ENABLE_DESCRIPTION,
        parameters: [idParameter('subscription')],
        requestBody: { required: true, content: json({ type: 'object', description: 'An empty JSON object (`{}`): nothing is read from it.' }) },
        responses: {
          '200': jsonResponse('Deliveries go on.', 'WebhookEnableResponse', 'authenticated', writePositionHeaders(false)),
          ...bodyErrors,
          '404': webhookNotFound,
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
      enum: [...catalogue.types],
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
      required: ['id', 'subscription_id', 'event_type', 'target_url', 'is_active', 'created_at', 'delivery_status', 'failing_since'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        subscription_id: { type: 'string', description: 'The same as `id`.' },
        event_type: schemaRef('WebhookEventType'),
        target_url: { type: 'string', format: 'uri' },
        is_active: { const: true, description: 'Always true: only subscriptions not unsubscribed are listed (paused and disabled ones too).' },
        created_at: schemaRef('Timestamp'),
        delivery_status: schemaRef('WebhookDeliveryStatus'),
        failing_since: {
          ...nullable(schemaRef('Timestamp')),
          description: 'While paused or disabled: the first failed attempt since the last delivery. Null while active.',
        },
      },
    },
    WebhookDeliveryStatus: {
      type: 'string',
      enum: ['active', 'paused', 'disabled'],
      description:
        '`active`: delivered to. `paused`: its receiver kept failing (a delivery used up its retries); events are queued and ' +
        'the receiver is tried again after 1 min, 5 min, 30 min, 1 h, 2 h, 4 h, then every 6 h (`WEBHOOK_PAUSE_DELAYS_MS`); ' +
        'its first 200 resumes it. `disabled`: it failed every attempt for `WEBHOOK_DISABLE_AFTER_MS` (5 days): events are ' +
        'queued, nothing is sent until `POST /webhooks/{id}/enable`.',
    },
    WebhookEnableResponse: {
      type: 'object',
      required: ['success', 'message', 'data'],
      additionalProperties: false,
      properties: {
        success: { const: true },
        message: { type: 'string' },
        data: {
          type: 'object',
          required: ['id', 'delivery_status'],
          additionalProperties: false,
          properties: { id: { type: 'string' }, delivery_status: { const: 'active' } },
        },
      },
    },
    WebhookSubscriptionLimitError: errorCase({ const: 'Webhook subscription limit reached' }),
    WebhookHistoryEvent: historyEvent('A stored event of a webhook subscription (never its secret).', {
      WebhookSubscribed: historyData(['event', 'targetUrl', 'filters', 'createdAt'], {
        event: schemaRef('WebhookEventType'),
        targetUrl: { type: 'string' },
        filters: nullable(schemaRef('WebhookFilters')),
        createdAt: schemaRef('Timestamp'),
      }),
      WebhookUnsubscribed: historyData(['reason', 'at'], { reason: { enum: ['client', 'gone'] }, at: schemaRef('Timestamp') }),
      WebhookPaused: historyData(['failingSince', 'at'], { failingSince: schemaRef('Timestamp'), at: schemaRef('Timestamp') }),
      WebhookDisabled: historyData(['failingSince', 'at'], { failingSince: schemaRef('Timestamp'), at: schemaRef('Timestamp') }),
      WebhookEnabled: historyData(['reason', 'at'], { reason: { enum: ['client', 'recovered'] }, at: schemaRef('Timestamp') }),
      WebhookEndedByImport: historyData(['at'], { at: schemaRef('Timestamp') }),
      WebhookSecretRotated: historyData(['overlapHours', 'previousSecretExpiresAt', 'at'], {
        overlapHours: { type: 'integer', minimum: 0, maximum: 168 },
        previousSecretExpiresAt: schemaRef('Timestamp'),
        at: schemaRef('Timestamp'),
      }),
    }),
    WebhookHistory: listEnvelope('WebhookHistoryEvent'),
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
    WebhookAttemptErrorKind: {
      type: 'string',
      enum: ['timeout', 'connection_refused', 'connection_reset', 'dns', 'tls', 'refused_address', 'invalid_target', 'no_secret', 'other'],
      description: 'Why an attempt got no response, in one word.',
    },
    WebhookDeliveryAttempt: {
      type: 'object',
      required: ['at', 'statusCode', 'error', 'errorKind', 'latencyMs'],
      additionalProperties: false,
      properties: {
        at: schemaRef('Timestamp'),
        statusCode: nullable({ type: 'integer' }),
        error: nullable({ type: 'string' }),
        errorKind: nullable(schemaRef('WebhookAttemptErrorKind')),
        latencyMs: { type: 'number', minimum: 0 },
      },
    },
    WebhookHeaders: { type: 'object', additionalProperties: { type: 'string' }, description: 'Header names in lower case.' },
    WebhookDeliveryAttemptDetail: {
      type: 'object',
      required: ['at', 'statusCode', 'error', 'errorKind', 'latencyMs', 'request', 'response'],
      additionalProperties: false,
      properties: {
        at: schemaRef('Timestamp'),
        statusCode: nullable({ type: 'integer' }),
        error: nullable({ type: 'string' }),
        errorKind: nullable(schemaRef('WebhookAttemptErrorKind')),
        latencyMs: { type: 'number', minimum: 0 },
        request: nullable({
          type: 'object',
          required: ['url', 'headers', 'body'],
          additionalProperties: false,
          description: 'What was sent; null when nothing was (no secret), and on attempts recorded before requests were kept.',
          properties: {
            url: { type: 'string' },
            headers: schemaRef('WebhookHeaders'),
            body: { type: 'string', description: 'The body exactly as sent and signed.' },
          },
        }),
        response: nullable({
          type: 'object',
          required: ['statusCode', 'headers', 'body', 'bodyTruncated', 'erased'],
          additionalProperties: false,
          description: 'What came back; null without a response (see `error`), and on attempts recorded before responses were kept.',
          properties: {
            statusCode: nullable({ type: 'integer' }),
            headers: { ...schemaRef('WebhookHeaders'), description: 'As received, `set-cookie` and `authorization` replaced with `[redacted]`.' },
            body: { type: 'string', description: 'The first 64 KiB of the body, as UTF-8 text.' },
            bodyTruncated: { type: 'boolean', description: 'The body was longer than 64 KiB.' },
            erased: { type: 'boolean', description: 'A person\'s erasure emptied the headers and body.' },
          },
        }),
      },
    },
    WebhookDelivery: {
      type: 'object',
      required: ['eventId', 'event', 'occurredAt', 'state', 'test', 'attempts', 'nextAttemptAt', 'completedAt', 'failureReason'],
      additionalProperties: false,
      properties: {
        eventId: { type: 'string', description: '`metadata.eventId` and the `webhook-id` header of every attempt.' },
        event: schemaRef('WebhookEventType'),
        occurredAt: schemaRef('Timestamp'),
        state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
        test: { type: 'boolean', description: 'A test delivery (sent from the console; its body says `metadata.test: true`), not a change of any record.' },
        attempts: { type: 'array', items: schemaRef('WebhookDeliveryAttempt') },
        nextAttemptAt: nullable(schemaRef('Timestamp')),
        completedAt: nullable(schemaRef('Timestamp')),
        failureReason: nullable({ type: 'string', enum: ['retries_exhausted', 'gone', 'unsubscribed'] }),
      },
    },
    WebhookDeliveryDetail: {
      type: 'object',
      required: ['eventId', 'event', 'occurredAt', 'state', 'test', 'attempts', 'nextAttemptAt', 'completedAt', 'failureReason'],
      additionalProperties: false,
      properties: {
        eventId: { type: 'string' },
        event: schemaRef('WebhookEventType'),
        occurredAt: schemaRef('Timestamp'),
        state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
        test: { type: 'boolean' },
        attempts: { type: 'array', items: schemaRef('WebhookDeliveryAttemptDetail') },
        nextAttemptAt: nullable(schemaRef('Timestamp')),
        completedAt: nullable(schemaRef('Timestamp')),
        failureReason: nullable({ type: 'string', enum: ['retries_exhausted', 'gone', 'unsubscribed'] }),
      },
    },
    ...ROTATE_SECRET_SCHEMAS,
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
});
