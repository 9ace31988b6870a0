import {
  DECIMAL_POSITION,
  errorCase,
  headersOf,
  internalError,
  json,
  jsonResponse,
  schemaRef,
  type ApiModule,
} from './common.js';
import type { JsonSchema } from './types.js';

const readinessCheck = (description: string): JsonSchema => ({ ...schemaRef('ReadinessCheck'), description });

/**
 * The service's own paths: `/health`, `/ready`, `/metrics`, `/openapi.json`
 * and `/docs` (no API key).
 */
export const system: ApiModule = {
  tags: [
    { name: 'Service', description: 'Health, readiness, metrics and documentation (no API key).' },
  ],
  paths: {
    '/health': {
      get: {
        operationId: 'getHealth',
        tags: ['Service'],
        summary: 'Liveness, stores and read-model progress',
        description:
          'No API key needed. Answers 200 while the process runs, even when a store is down (restarting would not help): ' +
          'the figures are then null. Whether the process can serve traffic is `GET /ready`.',
        security: [],
        responses: {
          '200': jsonResponse('The service is up.', 'Health', 'public'),
          '500': internalError('public'),
        },
      },
    },
    '/ready': {
      get: {
        operationId: 'getReadiness',
        tags: ['Service'],
        summary: 'Readiness: can this process serve traffic now',
        description: [
          'No API key needed. For load balancers and orchestrators: 200 when the event store and the read-model store answer',
          '(each check bounded to 2 s) and, on a process serving the API, the read models are at most `READY_MAX_LAG_MS`',
          '(default 5000) behind the log. Otherwise 503 with every check in `details.checks`; why a check failed is',
          'logged, never answered. A process that is shutting down answers 503 (`shutdown: stopping`).',
        ].join(' '),
        security: [],
        responses: {
          '200': jsonResponse('Ready.', 'Readiness', 'public'),
          '500': internalError('public'),
          '503': jsonResponse('Not ready: `message` names the failing checks.', 'NotReadyError', 'public'),
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'getMetrics',
        tags: ['Service'],
        summary: 'Metrics in the Prometheus text format',
        description: [
          'No API key (Prometheus has none to send). When the server sets `METRICS_TOKEN`, send it as',
          '`Authorization: Bearer <METRICS_TOKEN>`. Requests by method, route template and status with latency histograms,',
          'read-model and webhook fan-out position and lag, webhook outbox rows by state, delivery attempts by outcome,',
          'and Node process metrics. Labels never hold ids, companies, keys or secrets. Keep this endpoint off the internet.',
          'With `API_WORKERS` above 1, the figures of every API worker, added up by their supervisor (503 `STORE_BUSY` when it',
          'does not answer in time).',
        ].join(' '),
        security: [{}, { metricsToken: [] }],
        responses: {
          '200': {
            description: 'The Prometheus text exposition format 0.0.4.',
            headers: headersOf('public'),
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          '401': {
            description: '`METRICS_TOKEN` is set and the request does not carry it.',
            headers: {
              ...headersOf('public'),
              'WWW-Authenticate': { description: 'The scheme to use: `Bearer`.', required: true, schema: { type: 'string', pattern: '^Bearer' } },
            },
            content: json(schemaRef('MetricsUnauthorizedError')),
          },
          '500': internalError('public'),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        tags: ['Service'],
        summary: 'This document',
        description: 'No API key needed.',
        security: [],
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document.',
            headers: headersOf('public'),
            content: json({
              type: 'object',
              required: ['openapi', 'info', 'paths'],
              properties: {
                openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
                info: { type: 'object' },
                paths: { type: 'object' },
              },
            }),
          },
          '500': internalError('public'),
        },
      },
    },
    '/docs': {
      get: {
        operationId: 'getApiDocs',
        tags: ['Service'],
        summary: 'Interactive documentation (Swagger UI)',
        description: 'No API key needed. Swagger UI is served by this server (`/docs/assets/…`); nothing is loaded from elsewhere.',
        security: [],
        responses: {
          '200': { description: 'An HTML page.', headers: headersOf('public'), content: { 'text/html': { schema: { type: 'string' } } } },
          '500': internalError('public'),
        },
      },
    },
  },
  schemas: {
    Health: {
      type: 'object',
      required: ['success', 'data'],
      additionalProperties: false,
      properties: {
        success: { const: true },
        data: {
          type: 'object',
          required: ['status', 'eventStore', 'readModels', 'lastPosition', 'projections'],
          additionalProperties: false,
          properties: {
            status: { const: 'ok' },
            eventStore: { type: 'string', description: 'Event store kind: `sqlite` (embedded), `eventstoredb` or `postgres`.' },
            readModels: { type: 'string', description: 'Read-model store kind: `sqlite` (embedded), `mongodb`, `postgres` or `memory`.' },
            lastPosition: {
              type: ['string', 'null'],
              pattern: DECIMAL_POSITION,
              description: 'Position of the newest event in the log; null while the log is empty, or when the store did not answer within 1 s.',
            },
            subscriptions: {
              type: 'object',
              description:
                'The subscriptions to the log this process runs (`read-models`, `webhook-fan-out`), by name: whether each is ' +
                'connected, and what it waits for while it is not (also while the start waits for it).',
              additionalProperties: schemaRef('SubscriptionStatus'),
            },
            projections: {
              type: ['object', 'null'],
              description:
                'Progress of the read models; null when this process neither runs projections nor serves the API, or when the stores did not answer within 1 s.',
              required: ['position', 'caughtUp', 'lagMs'],
              additionalProperties: false,
              properties: {
                position: { type: ['string', 'null'], pattern: DECIMAL_POSITION },
                caughtUp: { type: 'boolean' },
                lagMs: { type: 'integer', minimum: 0, description: 'Age of the oldest event not applied yet (0 when caught up).' },
              },
            },
          },
        },
      },
    },
    SubscriptionStatus: {
      type: 'object',
      required: ['state', 'waitingFor', 'since', 'failures', 'lastError'],
      additionalProperties: false,
      properties: {
        state: {
          enum: ['starting', 'connected', 'reconnecting', 'standby', 'stopped'],
          description:
            '`starting`: not subscribed yet; `reconnecting`: the connection failed and it resubscribes with backoff; ' +
            '`standby`: healthy but idle (another instance consumes the EventStoreDB persistent subscription group).',
        },
        waitingFor: { type: ['string', 'null'], description: 'What it waits for, in words; null when connected.' },
        since: schemaRef('Timestamp'),
        failures: { type: 'integer', minimum: 0, description: 'Failed attempts since it was last connected.' },
        lastError: { type: ['string', 'null'], description: 'The last failure, in words.' },
      },
    },
    ReadinessCheck: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: {
        status: {
          enum: ['ok', 'failed', 'timeout', 'lagging', 'stopping', 'waiting', 'stopped'],
          description:
            '`failed`: the store answered with an error; `timeout`: no answer within 2 s; `lagging`: further behind than ' +
            '`READY_MAX_LAG_MS`; `waiting`: a subscription to the log is not connected (`waitingFor` says for what); ' +
            '`stopped`: the subscription stopped at an event of the log that this release cannot read (`event`), and ' +
            'stays stopped until the code or the event is corrected and the process restarted.',
        },
        lagMs: { type: 'integer', minimum: 0, description: 'Projections only: age of the oldest event not applied yet.' },
        waitingFor: {
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'Subscriptions only: what each subscription that is not connected waits for, by name.',
        },
        failing: {
          type: 'object',
          description:
            '`backgroundLoops` only: each background loop whose store calls fail right now (it keeps retrying with backoff), ' +
            'since when and how many times in a row (the errors are logged, never answered).',
          additionalProperties: {
            type: 'object',
            required: ['since', 'failures'],
            additionalProperties: false,
            properties: { since: { type: 'string', format: 'date-time' }, failures: { type: 'integer', minimum: 1 } },
          },
        },
        event: {
          type: 'object',
          description: '`stopped` only: the stored event that cannot be read (everything before it is applied).',
          required: ['eventId', 'stream', 'type', 'position', 'version'],
          additionalProperties: false,
          properties: {
            eventId: { type: 'string' },
            stream: { type: 'string' },
            type: { type: 'string' },
            position: { type: 'string', pattern: DECIMAL_POSITION },
            version: {
              type: ['integer', 'null'],
              description: 'The schema version it is stored in (recorded, or inferred for events written before versions were recorded); null when it names none.',
            },
          },
        },
      },
    },
    ReadinessChecks: {
      type: 'object',
      required: ['eventStore', 'readModels'],
      additionalProperties: false,
      properties: {
        eventStore: readinessCheck('The event store answers.'),
        readModels: readinessCheck('The read-model store answers.'),
        projections: readinessCheck(
          'Processes serving the API: the read models are within `READY_MAX_LAG_MS` of the log. Processes running the ' +
            'projections: `stopped` when they stopped at an event they cannot read.',
        ),
        readReplica: readinessCheck(
          'API processes reading from a replica (`POSTGRES_READ_URL`): `ok`, or `lagging` when its read models are more than `READY_MAX_LAG_MS` ' +
            'behind the log (`lagMs`), or `failed`/`timeout` when it does not answer. Informative: it never makes the process unready, since reads ' +
            'then go to the primary.',
        ),
        webhookFanOut: readinessCheck('Processes running the webhooks: present only when the fan-out stopped at an event it cannot read (`stopped`).'),
        subscriptions: readinessCheck(
          'The subscriptions to the log this process runs are connected (or a healthy standby); `waiting` names what each other one waits for.',
        ),
        backgroundLoops: readinessCheck(
          'Present only while a background loop (`read-model-checkpoint`, `webhook-dispatcher`, `webhook-retention`, ' +
            '`rate-limit-leases`) meets store errors (`failed`, with `failing`): it keeps retrying, and the process keeps running.',
        ),
        start: readinessCheck('Present only while the start is not complete (`waiting`): the read models catch up, and resource routes answer 503 `STARTING`.'),
        shutdown: readinessCheck('Present only while the process is shutting down (`stopping`).'),
      },
    },
    Readiness: {
      type: 'object',
      required: ['success', 'data'],
      additionalProperties: false,
      properties: {
        success: { const: true },
        data: {
          type: 'object',
          required: ['status', 'checks'],
          additionalProperties: false,
          properties: { status: { const: 'ready' }, checks: schemaRef('ReadinessChecks') },
        },
      },
    },
    NotReadyError: errorCase(
      { const: 'Service unavailable' },
      {
        required: ['message', 'details'],
        properties: {
          message: {
            type: 'string',
            description:
              'The failing checks, e.g. `Not ready: projections lagging.`, or for a stopped subscription the event: ' +
              '`Not ready: projections stopped at event <id> (ContactUpdated, version 3) at position 42 in contact-<id>, which this release cannot read.`',
          },
          details: {
            type: 'object',
            required: ['checks'],
            additionalProperties: false,
            properties: { checks: schemaRef('ReadinessChecks') },
          },
        },
      },
    ),
    MetricsUnauthorizedError: errorCase({ const: 'Invalid metrics token' }),
  },
};
