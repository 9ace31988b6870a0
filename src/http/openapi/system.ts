import {
  authenticated,
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
 * The service's own paths: `/health`, `/ready`, `/metrics`, `/openapi.json`,
 * `/docs` (no API key) and `/test` (checks a key).
 */
export const system: ApiModule = {
  tags: [
    { name: 'Service', description: 'Health, readiness, metrics and documentation (no API key).' },
    { name: 'Authentication', description: 'Checking an API key.' },
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
    '/test': {
      get: authenticated(null, {
        operationId: 'testApiKey',
        tags: ['Authentication'],
        summary: 'Check an API key',
        description: 'Confirms that the key is valid, and shows its company and permissions.',
        responses: { '200': jsonResponse('The key is valid.', 'TestResult', 'authenticated') },
      }),
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
            eventStore: { type: 'string', description: 'Event store kind: `sqlite` or `eventstoredb`.' },
            readModels: { type: 'string', description: 'Read-model store kind: `sqlite` (embedded), `mongodb` or `memory`.' },
            lastPosition: {
              type: ['string', 'null'],
              pattern: DECIMAL_POSITION,
              description: 'Position of the newest event in the log; null while the log is empty, or when the store did not answer within 1 s.',
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
    ReadinessCheck: {
      type: 'object',
      required: ['status'],
      additionalProperties: false,
      properties: {
        status: {
          enum: ['ok', 'failed', 'timeout', 'lagging', 'stopping'],
          description: '`failed`: the store answered with an error; `timeout`: no answer within 2 s; `lagging`: further behind than `READY_MAX_LAG_MS`.',
        },
        lagMs: { type: 'integer', minimum: 0, description: 'Projections only: age of the oldest event not applied yet.' },
      },
    },
    ReadinessChecks: {
      type: 'object',
      required: ['eventStore', 'readModels'],
      additionalProperties: false,
      properties: {
        eventStore: readinessCheck('The event store answers.'),
        readModels: readinessCheck('The read-model store answers.'),
        projections: readinessCheck('Processes serving the API only: the read models are within `READY_MAX_LAG_MS` of the log.'),
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
          message: { type: 'string', description: 'The failing checks, e.g. `Not ready: projections lagging.`' },
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
    TestResult: {
      type: 'object',
      required: ['success', 'message', 'data'],
      additionalProperties: false,
      properties: {
        success: { const: true },
        message: { type: 'string' },
        data: {
          type: 'object',
          required: ['companyId', 'permissions', 'timestamp'],
          additionalProperties: false,
          properties: {
            companyId: { type: 'string' },
            permissions: { type: 'array', items: schemaRef('Permission') },
            timestamp: schemaRef('Timestamp'),
          },
        },
      },
    },
  },
};
