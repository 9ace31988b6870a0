import { headersOf, internalError, json, type ApiModule } from '../common.js';

/** The admin API's own document and its page: `/admin/openapi.json` and `/admin/docs` (no token). */
export const adminSystem: ApiModule = {
  tags: [{ name: 'Admin documentation', description: 'This document and its page (no admin token needed).' }],
  paths: {
    '/admin/openapi.json': {
      get: {
        operationId: 'getAdminOpenApiDocument',
        tags: ['Admin documentation'],
        summary: 'This document',
        description: 'No admin token needed.',
        security: [],
        responses: {
          '200': {
            description: 'The admin API\'s OpenAPI 3.1 document.',
            headers: headersOf('public'),
            content: json({
              type: 'object',
              required: ['openapi', 'info', 'paths'],
              properties: { openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' }, info: { type: 'object' }, paths: { type: 'object' } },
            }),
          },
          '500': internalError('public'),
        },
      },
    },
    '/admin/docs': {
      get: {
        operationId: 'getAdminApiDocs',
        tags: ['Admin documentation'],
        summary: 'Interactive documentation of the admin API (Swagger UI)',
        description: 'No admin token needed. Served by this server (`/admin/docs/assets/…`); nothing is loaded from elsewhere.',
        security: [],
        responses: {
          '200': { description: 'An HTML page.', headers: headersOf('public'), content: { 'text/html': { schema: { type: 'string' } } } },
          '500': internalError('public'),
        },
      },
    },
  },
  schemas: {},
};
