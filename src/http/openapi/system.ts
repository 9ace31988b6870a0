import { authenticated, DECIMAL_POSITION, headersOf, internalError, json, jsonResponse, schemaRef, type ApiModule } from './common.js';

/** The service's own paths: `/health`, `/openapi.json`, `/docs` (no API key) and `/test` (checks a key). */
export const system: ApiModule = {
  tags: [
    { name: 'Service', description: 'Health and documentation (no API key).' },
    { name: 'Authentication', description: 'Checking an API key.' },
  ],
  paths: {
    '/health': {
      get: {
        operationId: 'getHealth',
        tags: ['Service'],
        summary: 'Liveness, stores and read-model progress',
        description: 'No API key needed.',
        security: [],
        responses: {
          '200': jsonResponse('The service is up.', 'Health', 'public'),
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
            readModels: { type: 'string', description: 'Read-model store kind: `memory` or `mongodb`.' },
            lastPosition: {
              type: ['string', 'null'],
              pattern: DECIMAL_POSITION,
              description: 'Position of the newest event in the log; null while the log is empty.',
            },
            projections: {
              type: ['object', 'null'],
              description: 'Progress of the read models; null when this process runs no projections.',
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
