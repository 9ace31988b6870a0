import { ALL_PERMISSIONS, type Permission } from '../../shared/permissions.js';
import type {
  HeaderObject,
  JsonSchema,
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  ResponseObject,
} from './types.js';

/**
 * Chronicle's OpenAPI 3.1 document: the contract the routes implement and the
 * HTTP tests check every response against (`test/support/openApi.ts`). Schemas are
 * JSON Schema draft 2020-12 (OpenAPI 3.1's dialect) under `components.schemas`.
 */

const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

const DECIMAL_POSITION = '^(0|[1-9][0-9]*)$';

// ---------------------------------------------------------------- headers

const requestIdHeader: HeaderObject = {
  description:
    'Identifies the request in the logs: the `X-Request-Id` the client sent when it is 1–128 of `A-Z a-z 0-9 . _ : -`, else a new UUID.',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
};

/**
 * The six rate-limit headers. Resets are Unix epoch seconds (as GitHub's
 * `X-RateLimit-Reset`) of the moment the window ends.
 */
const rateLimitHeaders = (required: boolean): Record<string, HeaderObject> => {
  const header = (description: string, minimum: number): HeaderObject => ({
    description,
    required,
    schema: { type: 'integer', minimum },
  });
  return {
    'X-RateLimit-Hourly-Limit': header('Requests this API key may make per UTC hour.', 1),
    'X-RateLimit-Hourly-Remaining': header('Requests left in the current UTC hour.', 0),
    'X-RateLimit-Hourly-Reset': header('When the hourly window ends (the top of the next UTC hour), in Unix epoch seconds.', 0),
    'X-RateLimit-Daily-Limit': header('Requests this API key may make per UTC day.', 1),
    'X-RateLimit-Daily-Remaining': header('Requests left in the current UTC day.', 0),
    'X-RateLimit-Daily-Reset': header('When the daily window ends (the next midnight UTC), in Unix epoch seconds.', 0),
  };
};

const retryAfterHeader: HeaderObject = {
  description: 'Seconds to wait before the next request can succeed.',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};

const logPositionHeader = (required: boolean, description: string): HeaderObject => ({
  description,
  required,
  schema: { type: 'string', pattern: DECIMAL_POSITION },
});

const allowHeader: HeaderObject = {
  description: 'The methods the path supports.',
  required: true,
  schema: { type: 'string' },
};

// ---------------------------------------------------------------- responses

/** Headers of a response to an authenticated operation: rate-limit headers are certain once the key was accepted. */
type Access = 'public' | 'authenticated' | 'authenticated-maybe-before-limits';

const headersOf = (access: Access): Record<string, HeaderObject> => {
  switch (access) {
    case 'public':
      return { 'X-Request-Id': requestIdHeader };
    case 'authenticated':
      return { 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(true) };
    case 'authenticated-maybe-before-limits':
      return { 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(false) };
  }
};

const jsonResponse = (
  description: string,
  schema: string,
  access: Access,
  extraHeaders: Record<string, HeaderObject> = {},
): ResponseObject => ({
  description,
  headers: { ...headersOf(access), ...extraHeaders },
  content: json(schemaRef(schema)),
});

const unauthorized: ResponseObject = {
  description:
    'No API key (`API key required in Authorization header`), a malformed one (`Invalid API key format`), ' +
    'or an unknown, expired or revoked one (`Invalid API key`).',
  headers: headersOf('public'),
  content: json(schemaRef('UnauthorizedError')),
};

const forbidden = (permission: Permission): ResponseObject =>
  jsonResponse(`The API key lacks the \`${permission}\` permission.`, 'ForbiddenError', 'authenticated');

const tooManyRequests: ResponseObject = jsonResponse(
  'Rate limit exceeded: the hourly or daily request limit of this API key (the `message` names which and when it resets), ' +
    'or too many concurrent requests (`retryAfter` 1).',
  'RateLimitError',
  'authenticated',
  { 'Retry-After': retryAfterHeader },
);

const internalError = (access: Access): ResponseObject =>
  jsonResponse(
    'Unexpected failure. No internals are shown; quote `requestId` to support.',
    'InternalError',
    access === 'public' ? 'public' : 'authenticated-maybe-before-limits',
  );

const validationFailed = (what: string): ResponseObject =>
  jsonResponse(
    `${what}: \`Validation failed\` with \`details\` mapping each field to a message, ` +
      'or `Missing required fields` with `details.missingFields`.',
    'ValidationError',
    'authenticated',
  );

const badRequest = (what: string): ResponseObject => jsonResponse(what, 'BadRequestError', 'authenticated');

const bodyErrors = {
  '400': badRequest('The body is not valid JSON.'),
  '413': jsonResponse('The body is larger than 1 MB.', 'PayloadTooLargeError', 'authenticated'),
  '415': jsonResponse('The body is not sent as `Content-Type: application/json`.', 'UnsupportedMediaTypeError', 'authenticated'),
} as const;

// ---------------------------------------------------------------- parameters

const minLogPosition: ParameterObject = {
  name: 'X-Min-Log-Position',
  in: 'header',
  required: false,
  description:
    'Read-your-writes across instances: the `X-Log-Position` of an earlier write. The read waits (bounded) until ' +
    'this instance has applied it. Not a log position: 400.',
  schema: { type: 'string', pattern: DECIMAL_POSITION },
};

const contactId: ParameterObject = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The contact id.',
  schema: { type: 'string', minLength: 1 },
};

const instant = (description: string): JsonSchema => ({
  description,
  type: 'string',
  anyOf: [{ format: 'date-time' }, { format: 'date' }],
});

// ---------------------------------------------------------------- operations

const authenticated = (permission: Permission | null, operation: OperationObject): OperationObject => ({
  ...operation,
  description: [
    operation.description,
    permission ? `Requires the \`${permission}\` permission.` : 'Any valid API key; no permission needed.',
  ]
    .filter(Boolean)
    .join('\n\n'),
  ...(permission ? { 'x-required-permission': permission } : {}),
  security: [{ bearerAuth: [] }],
  responses: {
    ...operation.responses,
    '401': unauthorized,
    ...(permission ? { '403': forbidden(permission) } : {}),
    '429': tooManyRequests,
    '500': internalError('authenticated'),
  },
});

// ---------------------------------------------------------------- schemas

const text = (maxLength: number, description?: string): JsonSchema => ({
  type: 'string',
  maxLength,
  ...(description ? { description } : {}),
});
const nullableText = (maxLength: number, description?: string): JsonSchema => ({
  type: ['string', 'null'],
  maxLength,
  ...(description ? { description } : {}),
});

/** Contact fields besides `name` and `phoneNumber`, with the specification's limits. */
const optionalContactFields = (nullable: boolean): Record<string, JsonSchema> => {
  const field = nullable ? nullableText : text;
  return {
    firstName: field(100),
    lastName: field(100),
    email: {
      type: nullable ? ['string', 'null'] : 'string',
      format: 'email',
      maxLength: 254,
      description: 'An e-mail address whose domain has at least one dot.',
    },
    position: field(100, 'Job title.'),
    currentCompany: field(255),
    industrySector: field(100),
    city: field(100),
    country: field(100),
  };
};

const phoneNumberInput: JsonSchema = {
  type: 'string',
  pattern: '^\\s*\\+?[0-9 .\\-()]+\\s*$',
  description:
    '3 to 15 digits, an optional leading `+` (or `00`), and spaces, dots, dashes or parentheses. ' +
    'Stored normalised (separators removed, `00` → `+`); unique within the company.',
  examples: ['+49 151 2345 6789'],
};

const tagsInput = (nullable: boolean): JsonSchema => ({
  type: nullable ? ['array', 'null'] : 'array',
  items: { type: 'string', minLength: 1, maxLength: 50 },
  description: 'Labels, each trimmed to 1–50 characters; duplicates are dropped; at most 50 distinct tags. `null` means none.',
});

const nameInput: JsonSchema = { type: 'string', minLength: 1, maxLength: 255, description: 'Full name (trimmed).' };

const schemas: Record<string, JsonSchema> = {
  Permission: { type: 'string', enum: [...ALL_PERMISSIONS] },
  Timestamp: {
    type: 'string',
    format: 'date-time',
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
    description: 'ISO 8601, UTC, with milliseconds.',
    examples: ['2026-01-01T12:00:00.000Z'],
  },
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
  Contact: {
    type: 'object',
    required: [
      'id',
      'name',
      'firstName',
      'lastName',
      'phoneNumber',
      'email',
      'position',
      'currentCompany',
      'industrySector',
      'city',
      'country',
      'tags',
      'createdAt',
      'updatedAt',
    ],
    additionalProperties: false,
    properties: {
      id: { type: 'string', description: 'Server-assigned (a UUID).' },
      name: { type: 'string', minLength: 1, maxLength: 255 },
      firstName: nullableText(100),
      lastName: nullableText(100),
      phoneNumber: { type: 'string', pattern: '^\\+?[0-9]{3,15}$', description: 'Normalised: digits with an optional leading `+`.' },
      email: { type: ['string', 'null'], format: 'email', maxLength: 254 },
      position: nullableText(100, 'Job title.'),
      currentCompany: nullableText(255),
      industrySector: nullableText(100),
      city: nullableText(100),
      country: nullableText(100),
      tags: { type: 'array', items: { type: 'string' } },
      createdAt: schemaRef('Timestamp'),
      updatedAt: schemaRef('Timestamp'),
    },
  },
  ContactCreate: {
    type: 'object',
    description: 'Unknown fields (including `id`, `createdAt`, `updatedAt`) are ignored. Strings are trimmed; an empty optional string or null means no value.',
    required: ['name', 'phoneNumber'],
    properties: {
      name: nameInput,
      phoneNumber: phoneNumberInput,
      ...optionalContactFields(true),
      tags: tagsInput(true),
    },
  },
  ContactUpdate: {
    type: 'object',
    description:
      'Any subset of the fields; unsent fields keep their value, `null` (or an empty string) clears an optional one. ' +
      'At least one known field. `name` and `phoneNumber` cannot be cleared.',
    minProperties: 1,
    properties: {
      name: nameInput,
      phoneNumber: phoneNumberInput,
      ...optionalContactFields(true),
      tags: tagsInput(true),
    },
  },
  ContactResponse: {
    type: 'object',
    required: ['success', 'data'],
    additionalProperties: false,
    properties: { success: { const: true }, data: schemaRef('Contact') },
  },
  PaginationMeta: {
    type: 'object',
    required: ['page', 'limit', 'total', 'totalPages'],
    additionalProperties: false,
    properties: {
      page: { type: 'integer', minimum: 1 },
      limit: { type: 'integer', minimum: 1, maximum: 200 },
      total: { type: 'integer', minimum: 0 },
      totalPages: { type: 'integer', minimum: 0 },
    },
  },
  ContactList: {
    type: 'object',
    required: ['success', 'data', 'meta'],
    additionalProperties: false,
    properties: {
      success: { const: true },
      data: { type: 'array', items: schemaRef('Contact') },
      meta: schemaRef('PaginationMeta'),
    },
  },

  // Errors: `Error` is the common shape; each case adds its own fields and closes the object.
  Error: {
    type: 'object',
    description: 'Every failure. Case-specific bodies below add their own fields.',
    required: ['success', 'error', 'timestamp'],
    properties: {
      success: { const: false },
      error: { type: 'string', description: 'Short description.' },
      message: { type: 'string', description: 'Detailed text.' },
      code: { type: 'string' },
      details: { type: 'object', description: 'Extra context.' },
      timestamp: schemaRef('Timestamp'),
    },
  },
  BadRequestError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    properties: { error: { const: 'Bad request' } },
    unevaluatedProperties: false,
  },
  UnauthorizedError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    properties: {
      error: { enum: ['API key required in Authorization header', 'Invalid API key format', 'Invalid API key'] },
    },
    unevaluatedProperties: false,
  },
  ForbiddenError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    required: ['requiredPermission', 'availablePermissions'],
    properties: {
      error: { type: 'string', pattern: '^Permission denied: \\S+ required$' },
      requiredPermission: schemaRef('Permission'),
      availablePermissions: { type: 'array', items: schemaRef('Permission') },
    },
    unevaluatedProperties: false,
  },
  NotFoundError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    properties: { error: { enum: ['Contact not found', 'Not found'] } },
    unevaluatedProperties: false,
  },
  MethodNotAllowedError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    properties: { error: { const: 'Method not allowed' } },
    unevaluatedProperties: false,
  },
  ConflictError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    required: ['existingContactId'],
    properties: {
      error: { const: 'Contact with this phone number already exists' },
      existingContactId: { type: 'string' },
    },
    unevaluatedProperties: false,
  },
  PayloadTooLargeError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    properties: { error: { const: 'Payload too large' } },
    unevaluatedProperties: false,
  },
  UnsupportedMediaTypeError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    properties: { error: { const: 'Unsupported media type' } },
    unevaluatedProperties: false,
  },
  ValidationError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    required: ['details'],
    oneOf: [
      {
        type: 'object',
        properties: {
          error: { const: 'Validation failed' },
          details: {
            type: 'object',
            description: 'Field name → message.',
            additionalProperties: { type: 'string' },
          },
        },
      },
      {
        type: 'object',
        properties: {
          error: { const: 'Missing required fields' },
          details: {
            type: 'object',
            required: ['missingFields'],
            properties: { missingFields: { type: 'array', items: { type: 'string' }, minItems: 1 } },
          },
        },
      },
    ],
    unevaluatedProperties: false,
  },
  RateLimitError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    required: ['message', 'retryAfter', 'limits'],
    properties: {
      error: { const: 'Rate limit exceeded' },
      message: { type: 'string', description: 'Which limit was exceeded and when it resets.' },
      retryAfter: { type: 'integer', minimum: 1, description: 'Seconds until a request can succeed (also in `Retry-After`).' },
      limits: {
        type: 'object',
        required: ['hourly', 'daily'],
        additionalProperties: false,
        properties: {
          hourly: { type: 'integer', minimum: 1, description: 'Requests per UTC hour.' },
          daily: { type: 'integer', minimum: 1, description: 'Requests per UTC day.' },
        },
      },
    },
    unevaluatedProperties: false,
  },
  InternalError: {
    type: 'object',
    allOf: [schemaRef('Error')],
    required: ['requestId'],
    properties: {
      error: { const: 'Internal server error' },
      requestId: { type: 'string', description: 'The request id, as in `X-Request-Id`.' },
    },
    unevaluatedProperties: false,
  },
};

const INFO_DESCRIPTION = `
The external HTTP/JSON API of the customer platform: contacts (and, as they are
built, deals, webhooks and polling triggers). Every change is recorded as an
immutable event; reads come from read models that follow the event log.

**Authentication.** \`Authorization: Bearer <API_KEY>\` on every endpoint except
\`/health\`, \`/openapi.json\` and \`/docs\`. Each operation names the permission it
needs (\`x-required-permission\`).

**Rate limits, per API key.** Requests per UTC hour (the window resets at the top
of every hour) and per UTC day (resets at midnight UTC), and requests in flight at
once. Every request counts, refused ones included. Every authenticated response
carries \`X-RateLimit-{Hourly,Daily}-{Limit,Remaining,Reset}\`, where *Reset* is
the end of the window in Unix epoch seconds. Over a limit: 429 with \`Retry-After\`.

**Read your writes.** A write answers once its own read models are up to date, and
returns its log position in \`X-Log-Position\`; send it as \`X-Min-Log-Position\`
on a read to wait for it on any instance.

**Errors** are \`{success: false, error, message?, code?, details?, timestamp}\`,
with case-specific fields. Every response carries \`X-Request-Id\`.
`.trim();

/** The OpenAPI 3.1 document of the API served under `basePath`. */
export const openApiDocument = (basePath: string): OpenApiDocument => ({
  openapi: '3.1.0',
  jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
  info: {
    title: 'Chronicle external API',
    version: '1.0.0',
    summary: 'Contacts, deals, webhooks and polling triggers of the customer platform.',
    description: INFO_DESCRIPTION,
  },
  servers: [{ url: basePath || '/', description: 'This server' }],
  security: [{ bearerAuth: [] }],
  tags: [
    { name: 'Service', description: 'Health and documentation (no API key).' },
    { name: 'Authentication', description: 'Checking an API key.' },
    { name: 'Contacts', description: 'People the company talks to.' },
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
    '/contacts': {
      get: authenticated('contacts:read', {
        operationId: 'listContacts',
        tags: ['Contacts'],
        summary: 'List contacts',
        description:
          'Oldest first (creation order), so pages stay stable while contacts are added. Filters combine (all must match). ' +
          'A parameter out of its bounds or malformed is a 422 naming it.',
        parameters: [
          { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
          {
            name: 'search',
            in: 'query',
            required: false,
            description: 'Case-insensitive text within name, email or phone number.',
            schema: { type: 'string', maxLength: 200 },
          },
          {
            name: 'createdSince',
            in: 'query',
            required: false,
            schema: instant('Contacts created after this instant (ISO 8601; a date alone means midnight UTC).'),
          },
          {
            name: 'updatedSince',
            in: 'query',
            required: false,
            schema: instant('Contacts updated after this instant (ISO 8601; a date alone means midnight UTC).'),
          },
          minLogPosition,
        ],
        responses: {
          '200': jsonResponse('A page of contacts.', 'ContactList', 'authenticated'),
          '400': badRequest('`X-Min-Log-Position` is not a log position.'),
          '422': validationFailed('A query parameter is out of bounds or malformed'),
        },
      }),
      post: authenticated('contacts:write', {
        operationId: 'createContact',
        tags: ['Contacts'],
        summary: 'Create a contact',
        requestBody: { required: true, content: json(schemaRef('ContactCreate')) },
        responses: {
          '201': jsonResponse('The new contact.', 'ContactResponse', 'authenticated', {
            'X-Log-Position': logPositionHeader(true, 'Log position of the write; send it as `X-Min-Log-Position` to read it on any instance.'),
          }),
          ...bodyErrors,
          '409': jsonResponse('A contact with this phone number already exists (`existingContactId`).', 'ConflictError', 'authenticated'),
          '422': validationFailed('The body is invalid'),
        },
      }),
    },
    '/contacts/{id}': {
      get: authenticated('contacts:read', {
        operationId: 'getContact',
        tags: ['Contacts'],
        summary: 'Get a contact',
        parameters: [contactId, minLogPosition],
        responses: {
          '200': jsonResponse('The contact.', 'ContactResponse', 'authenticated'),
          '400': badRequest('`X-Min-Log-Position` is not a log position.'),
          '404': jsonResponse('No contact with this id in the caller\'s company (`Contact not found`).', 'NotFoundError', 'authenticated'),
        },
      }),
      put: authenticated('contacts:write', {
        operationId: 'updateContact',
        tags: ['Contacts'],
        summary: 'Update a contact',
        description: 'A partial body: unsent fields keep their value; `updatedAt` changes when something did.',
        parameters: [contactId],
        requestBody: { required: true, content: json(schemaRef('ContactUpdate')) },
        responses: {
          '200': jsonResponse('The contact after the update.', 'ContactResponse', 'authenticated', {
            'X-Log-Position': logPositionHeader(
              false,
              'Log position of the write (absent when the body changed nothing); send it as `X-Min-Log-Position` to read it on any instance.',
            ),
          }),
          ...bodyErrors,
          '404': jsonResponse('No contact with this id in the caller\'s company (`Contact not found`).', 'NotFoundError', 'authenticated'),
          '409': jsonResponse('Another contact has this phone number (`existingContactId`).', 'ConflictError', 'authenticated'),
          '422': validationFailed('The body is invalid'),
        },
      }),
    },
  },
  components: {
    schemas,
    responses: {
      NotFound: {
        description: 'No route has this path (`Not found`), on any method.',
        headers: headersOf('public'),
        content: json(schemaRef('NotFoundError')),
      },
      MethodNotAllowed: {
        description: 'The path exists, but not with this method; `Allow` lists the methods it has.',
        headers: { ...headersOf('public'), Allow: allowHeader },
        content: json(schemaRef('MethodNotAllowedError')),
      },
    },
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key: `Authorization: Bearer <API_KEY>`. Keys are shown once, when they are created.',
      },
    },
  },
});
