import { EVERY_PERMISSION } from '../../../shared/permissions.js';
import {
  badMinLogPosition,
  bodyErrorsOf,
  errorCase,
  idParameter,
  itemEnvelope,
  json,
  jsonResponse,
  limitParameter,
  listEnvelope,
  minLogPosition,
  NAME_CHARACTERS_RULE,
  nullable,
  pageParameter,
  schemaRef,
  validationFailed,
  type ApiModule,
} from '../../../http/openapi/common.js';
import type { JsonSchema } from '../../../http/openapi/types.js';
import { adminBodyErrors, adminCreate, adminOperation, adminWritten, companyIdParameter, companyNotFound } from '../../../http/openapi/admin/common.js';

const KEY_TYPES = ['generic', 'custom', 'zapier', 'make'] as const;

const keyFields: Record<string, JsonSchema> = {
  id: { type: 'string', description: 'The key\'s id (a UUID): revoke the key with it.' },
  name: { type: ['string', 'null'], maxLength: 200, description: 'The key\'s label; null for keys made without one (every key made before keys had names).' },
  type: schemaRef('ApiKeyType'),
  permissions: { type: 'array', items: schemaRef('Permission'), minItems: 1, uniqueItems: true, description: 'Each once, in the spec\'s order, then `contacts:erase`.' },
  createdAt: schemaRef('Timestamp'),
  expiresAt: { ...nullable(schemaRef('Timestamp')), description: 'When the key stops working; null: never.' },
  hint: { type: 'string', pattern: '^chr_\\.\\.\\.[0-9A-Za-z]{4}$', description: '`chr_...` and the key\'s last 4 characters, to tell keys apart.' },
};

const apiKeyNotFound = jsonResponse(
  'No API key with this id in this company (`API key not found`): unknown, or another company\'s.',
  'ApiKeyNotFoundError',
  'admin',
);

/** `/admin/companies/{id}/keys`: a company's API keys for the customer API. */
export const adminApiKeys: ApiModule = {
  tags: [{ name: 'API keys', description: 'A company\'s keys for the customer API: shown once at creation, stored only as a hash.' }],
  paths: {
    '/admin/companies/{id}/keys': {
      post: adminCreate({
        operationId: 'createApiKey',
        tags: ['API keys'],
        summary: 'Create an API key',
        description:
          '`data.key` is the key, shown in this response only: only its hash is stored. An idempotent replay ' +
          '(`Idempotent-Replayed: true`) answers `key: null`: the key was shown once; revoke it by `id` if it was lost.',
        parameters: [companyIdParameter],
        requestBody: { required: true, content: json(schemaRef('ApiKeyCreate')) },
        responses: {
          '201': adminWritten('The new key, with the key itself.', 'CreatedApiKeyResponse', true),
          ...adminBodyErrors('The body is invalid (also an expiry that is not in the future)'),
          '404': companyNotFound,
        },
      }),
      get: adminOperation({
        operationId: 'listApiKeys',
        tags: ['API keys'],
        summary: 'List a company\'s API keys',
        description: 'Oldest first, revoked ones included (`revokedAt`). Never the keys: their hints.',
        parameters: [companyIdParameter, pageParameter, limitParameter, minLogPosition],
        responses: {
          '200': jsonResponse('A page of the company\'s keys.', 'ApiKeyList', 'admin'),
          '400': badMinLogPosition('admin'),
          '404': companyNotFound,
          '422': validationFailed('A query parameter is out of bounds or malformed', 'admin'),
        },
      }),
    },
    '/admin/companies/{id}/keys/{keyId}': {
      delete: adminOperation({
        operationId: 'revokeApiKey',
        tags: ['API keys'],
        summary: 'Revoke an API key',
        description:
          'The key is refused by the customer API from then on (within a second on every instance). Revoking a key ' +
          'already revoked changes nothing and answers as the first revocation did (its `revokedAt`, no `X-Log-Position`).',
        parameters: [companyIdParameter, { ...idParameter('API key'), name: 'keyId' }],
        responses: {
          '200': adminWritten('The key, revoked.', 'RevokedApiKeyResponse', false),
          // A DELETE needs no body; one that carries a body must send JSON.
          ...bodyErrorsOf('admin'),
          '404': {
            ...apiKeyNotFound,
            description: 'No company with this id (`Company not found`), or no API key with this id in it (`API key not found`).',
            content: json({ oneOf: [schemaRef('CompanyNotFoundError'), schemaRef('ApiKeyNotFoundError')] }),
          },
        },
      }),
    },
  },
  schemas: {
    ApiKeyType: { type: 'string', enum: [...KEY_TYPES], description: 'What the key is for: `generic`, `custom`, or an automation platform.' },
    ApiKey: {
      type: 'object',
      required: ['id', 'name', 'type', 'permissions', 'createdAt', 'expiresAt', 'revokedAt', 'hint'],
      additionalProperties: false,
      properties: {
        ...keyFields,
        revokedAt: { ...nullable(schemaRef('Timestamp')), description: 'When the key was revoked; null: active (unless expired).' },
      },
    },
    CreatedApiKey: {
      type: 'object',
      required: ['id', 'key', 'name', 'type', 'permissions', 'createdAt', 'expiresAt', 'hint'],
      additionalProperties: false,
      properties: {
        ...keyFields,
        key: {
          type: ['string', 'null'],
          pattern: '^chr_[0-9A-Za-z]{36}$',
          description: 'The key: send it as `Authorization: Bearer <key>` on the customer API. Shown once; null on an idempotent replay.',
        },
      },
    },
    ApiKeyCreate: {
      type: 'object',
      required: ['name', 'type', 'permissions'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200, description: `A label to tell the key apart ("Zapier production"). ${NAME_CHARACTERS_RULE}` },
        type: schemaRef('ApiKeyType'),
        permissions: {
          type: 'array',
          items: schemaRef('Permission'),
          minItems: 1,
          description:
            `Any of ${EVERY_PERMISSION.join(', ')}. \`contacts:erase\` (erasing a contact for good) is enough on its own for that, ` +
            'and a key holds it only when it is named here.',
        },
        expiresAt: {
          type: ['string', 'null'],
          description: 'When the key stops working, in the future: an ISO 8601 date (midnight UTC) or date-time with a zone. Absent or null: never.',
        },
      },
    },
    RevokedApiKey: {
      type: 'object',
      required: ['id', 'revokedAt'],
      additionalProperties: false,
      properties: { id: { type: 'string' }, revokedAt: schemaRef('Timestamp') },
    },
    CreatedApiKeyResponse: itemEnvelope('CreatedApiKey'),
    RevokedApiKeyResponse: itemEnvelope('RevokedApiKey'),
    ApiKeyList: listEnvelope('ApiKey'),
    ApiKeyNotFoundError: errorCase({ const: 'API key not found' }),
  },
};
