import { authenticated, badMinLogPosition, jsonResponse, minLogPosition, schemaRef, type ApiModule } from '../../../http/openapi/common.js';

/** `/test`: checks an API key. */
export const testOpenApi: ApiModule = {
  tags: [{ name: 'Authentication', description: 'Checking an API key.' }],
  paths: {
    '/test': {
      get: authenticated(null, {
        operationId: 'testApiKey',
        tags: ['Authentication'],
        summary: 'Check an API key',
        description: 'Confirms that the key is valid, and shows its company and permissions.',
        // Like every authenticated GET, it honours X-Min-Log-Position (and refuses a malformed one).
        parameters: [minLogPosition],
        responses: { '200': jsonResponse('The key is valid.', 'TestResult', 'authenticated'), '400': badMinLogPosition() },
      }),
    },
  },
  schemas: {
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
