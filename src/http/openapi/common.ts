import { EVERY_PERMISSION, type Permission } from '../../shared/permissions.js';
import type {
  HeaderObject,
  JsonSchema,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ResponseObject,
  SecuritySchemeObject,
} from './types.js';

/**
 * The building blocks every part of the OpenAPI document shares: references,
 * headers, the error responses, `authenticated(…)`, list parameters, text helpers,
 * and the common schemas (timestamps, pagination, error bodies). Each resource
 * module (`system.ts`, `contacts.ts`, `deals.ts`, `agents.ts`) exports an
 * `ApiModule`; `document.ts` assembles them.
 */

/** What a resource module contributes to the document. */
export interface ApiModule {
  readonly tags: readonly { name: string; description?: string }[];
  readonly paths: Readonly<Record<string, PathItemObject>>;
  readonly schemas: Readonly<Record<string, JsonSchema>>;
}

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

/** The schema, or null. */
export const nullable = (schema: JsonSchema): JsonSchema => ({ oneOf: [schema, { type: 'null' }] });

export const DECIMAL_POSITION = '^(0|[1-9][0-9]*)$';

// ---------------------------------------------------------------- headers

export const requestIdHeader: HeaderObject = {
  description:
    'Identifies the request in the logs: the `X-Request-Id` the client sent when it is 1–128 of `A-Z a-z 0-9 . _ : -`, else a new UUID.',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
};

/**
 * The six rate-limit headers. Resets are Unix epoch seconds (as GitHub's
 * `X-RateLimit-Reset`) of the moment the window ends.
 */
export const rateLimitHeaders = (required: boolean, holder = 'API key'): Record<string, HeaderObject> => {
  const header = (description: string, minimum: number): HeaderObject => ({
    description,
    required,
    schema: { type: 'integer', minimum },
  });
  return {
    'X-RateLimit-Hourly-Limit': header(`Requests this ${holder} may make per UTC hour.`, 1),
    'X-RateLimit-Hourly-Remaining': header('Requests left in the current UTC hour.', 0),
    'X-RateLimit-Hourly-Reset': header('When the hourly window ends (the top of the next UTC hour), in Unix epoch seconds.', 0),
    'X-RateLimit-Daily-Limit': header(`Requests this ${holder} may make per UTC day.`, 1),
    'X-RateLimit-Daily-Remaining': header('Requests left in the current UTC day.', 0),
    'X-RateLimit-Daily-Reset': header('When the daily window ends (the next midnight UTC), in Unix epoch seconds.', 0),
  };
};

export const retryAfterHeader: HeaderObject = {
  description: 'Seconds to wait before the next request can succeed.',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};

export const logPositionHeader = (required: boolean, description: string): HeaderObject => ({
  description,
  required,
  schema: { type: 'string', pattern: DECIMAL_POSITION },
});

/**
 * `X-Log-Position` of a write: required when every success writes (create),
 * optional when a request that changes nothing writes nothing (update).
 */
export const writePositionHeaders = (required: boolean): Record<string, HeaderObject> => ({
  'X-Log-Position': required
    ? logPositionHeader(true, 'Log position of the write; send it as `X-Min-Log-Position` to read it on any instance.')
    : logPositionHeader(
        false,
        'Log position of the write (absent when the body changed nothing); send it as `X-Min-Log-Position` to read it on any instance.',
      ),
});

export const allowHeader: HeaderObject = {
  description: 'The methods the path supports.',
  required: true,
  schema: { type: 'string' },
};

// ---------------------------------------------------------------- responses

/**
 * Headers of a response to an authenticated operation: rate-limit headers are certain once the key was accepted.
 * `admin…`: the same on the admin API, where the caller holds an admin token.
 */
export type Access = 'public' | 'authenticated' | 'authenticated-maybe-before-limits' | 'admin' | 'admin-maybe-before-limits';

/** Answers on the admin API are the same as on the customer API, said of an admin token. */
export const isAdminAccess = (access: Access): boolean => access === 'admin' || access === 'admin-maybe-before-limits';

/** On an answer whose wait for the read models ran out (read-your-writes): it may not show that position yet. */
export const readYourWritesHeader: HeaderObject = {
  description:
    'Present (`timeout`) when this answer waited for the read models to apply a log position (the write\'s own, ' +
    '`X-Min-Log-Position`, or on a read the creates this instance answered for the company) and the wait ' +
    '(`READ_YOUR_WRITES_TIMEOUT_MS`) ran out: the answer may not show that position yet. After one such read, the ' +
    'company\'s reads that would wait for the same creates answer at once with it. Absent when the position was applied, ' +
    'or none was waited for. Retry the read later with the same `X-Min-Log-Position`.',
  required: false,
  schema: { const: 'timeout' },
};

export const headersOf = (access: Access): Record<string, HeaderObject> => {
  switch (access) {
    case 'public':
      return { 'X-Request-Id': requestIdHeader };
    case 'authenticated':
      return { 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(true), 'X-Read-Your-Writes': readYourWritesHeader };
    case 'authenticated-maybe-before-limits':
      return { 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(false) };
    case 'admin':
      return { 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(true, 'admin token'), 'X-Read-Your-Writes': readYourWritesHeader };
    case 'admin-maybe-before-limits':
      return { 'X-Request-Id': requestIdHeader, ...rateLimitHeaders(false, 'admin token') };
  }
};

/** A JSON response whose body is the named component schema (or the schema given). */
export const jsonResponse = (
  description: string,
  schema: string | JsonSchema,
  access: Access,
  extraHeaders: Record<string, HeaderObject> = {},
): ResponseObject => ({
  description,
  headers: { ...headersOf(access), ...extraHeaders },
  content: json(typeof schema === 'string' ? schemaRef(schema) : schema),
});

export const unauthorized: ResponseObject = {
  description:
    'No API key (`API key required in Authorization header`), a malformed one (`Invalid API key format`), ' +
    'or an unknown, expired or revoked one (`Invalid API key`).',
  headers: headersOf('public'),
  content: json(schemaRef('UnauthorizedError')),
};

/** The 403 of every authenticated operation: the API key's company is suspended by the platform. */
export const COMPANY_SUSPENDED_403 =
  'Or `Company suspended` (`code` `COMPANY_SUSPENDED`, without the permission fields): the platform suspended the ' +
  'API key\'s company; every key of it is refused until it is resumed (before the rate limits: without their headers).';

/** A 403 of `description` (a missing permission, `ForbiddenError`), or of a suspended company. */
export const forbiddenOrSuspended = (description: string): ResponseObject =>
  // A suspended company's key is refused before the rate limits: its 403 has none of their headers.
  jsonResponse(`${description} ${COMPANY_SUSPENDED_403}`, { oneOf: [schemaRef('ForbiddenError'), schemaRef('CompanySuspendedError')] }, 'authenticated-maybe-before-limits');

/** The 403 of an operation any valid key may call: only a suspended company's. */
export const companySuspended: ResponseObject = jsonResponse(
  'The platform suspended the API key\'s company (`Company suspended`, `code` `COMPANY_SUSPENDED`): every key of it is refused until it is resumed.',
  'CompanySuspendedError',
  'authenticated-maybe-before-limits',
);

export const forbidden = (permission: Permission): ResponseObject => forbiddenOrSuspended(`The API key lacks the \`${permission}\` permission.`);

/** The 429 of a client address past FAILED_CREDENTIALS_LIMIT, said of what it presents ("API keys", "admin tokens"). */
export const FAILED_CREDENTIALS_429 = (presented: string): string =>
  `Or \`code\` \`TOO_MANY_FAILED_CREDENTIALS\`: this client address presented more than \`FAILED_CREDENTIALS_LIMIT\` refused ${presented} ` +
  '(with console links and sessions) within `FAILED_CREDENTIALS_WINDOW_SECONDS`, in this process: a refused one is answered 429 instead of 401 ' +
  'until the window ends (`retryAfter`); a valid one is never refused for it, and carries no rate-limit headers when refused.';

export const tooManyRequests: ResponseObject = jsonResponse(
  'Rate limit exceeded: the hourly or daily request limit of this API key (the `message` names which and when it resets), ' +
    'or too many concurrent requests (`retryAfter` 1). ' +
    FAILED_CREDENTIALS_429('API keys'),
  { oneOf: [schemaRef('RateLimitError'), schemaRef('FailedCredentialsError')] },
  'authenticated-maybe-before-limits',
  { 'Retry-After': retryAfterHeader },
);

/** A write that cannot be taken now (a record changing under it, storage full, a busy lock, a store changing hands). */
export const serviceUnavailable: ResponseObject = jsonResponse(
  'Temporary outage. `code` says why: `STARTING` (the process is still catching up with the log after a start; any ' +
    'request), `READ_MODELS_BEHIND` (the API key is not known yet and the read models stayed behind the log for the ' +
    'whole wait: a key issued a moment ago cannot be told from an unknown one yet; any request), or for a write that ' +
    'cannot be taken right now `CONCURRENT_CHANGES` (the record kept changing under the write), `STORAGE_FULL`, ' +
    '`STORE_BUSY` (a busy lock, or a database server that cannot be reached, as while it fails over). Nothing was ' +
    'stored; send the same request again after `Retry-After` seconds. Only `STORE_INTERRUPTED` says the change may ' +
    'have been made (the connection to the database broke during the write, and its outcome could not be checked): ' +
    'read the record before sending it again.',
  'ServiceUnavailableError',
  'authenticated-maybe-before-limits',
  { 'Retry-After': retryAfterHeader },
);

export const internalError = (access: Access): ResponseObject =>
  jsonResponse(
    'Unexpected failure. No internals are shown; quote `requestId` to support.',
    'InternalError',
    access === 'public' ? 'public' : isAdminAccess(access) ? 'admin-maybe-before-limits' : 'authenticated-maybe-before-limits',
  );

export const validationFailed = (what: string, access: Access = 'authenticated'): ResponseObject =>
  jsonResponse(
    `${what}: \`Validation failed\` with \`details\` mapping each field to a message, ` +
      'or `Missing required fields` with `details.missingFields`.',
    'ValidationError',
    access,
  );

export const badRequest = (what: string, access: Access = 'authenticated'): ResponseObject => jsonResponse(what, 'BadRequestError', access);

/** The 400 of a read: `X-Min-Log-Position` (honoured on every authenticated GET) is malformed. */
export const badMinLogPosition = (access: Access = 'authenticated'): ResponseObject => badRequest('`X-Min-Log-Position` is not a log position.', access);

/** Failures of a request with a JSON body, before the body is looked at (`access`: whose operation it is). */
export const bodyErrorsOf = (access: Access) => ({
  '400': badRequest(
    'The body is not valid JSON (`code` `INVALID_JSON`); or it holds a key that could reach an object prototype, ' +
      '`__proto__` or `constructor` holding `prototype`, at any depth (`FORBIDDEN_KEY`, with `details.key` and ' +
      '`details.path`); or the `Content-Type` header is malformed by RFC 9110, e.g. `application/json; charset` ' +
      '(`MALFORMED_CONTENT_TYPE`, the `message` says what is wrong).',
    access,
  ),
  '413': jsonResponse('The body is larger than 1 MB.', 'PayloadTooLargeError', access),
  '415': jsonResponse(
    'The body is not sent as `Content-Type: application/json` (`code` `UNSUPPORTED_MEDIA_TYPE`; `application/*+json` ' +
      'types included), or with a `charset` other than `utf-8` (`UNSUPPORTED_CHARSET`). Type and parameter names ' +
      'are case-insensitive; other parameters are ignored.',
    'UnsupportedMediaTypeError',
    access,
  ),
});

/** Failures of a request with a JSON body on the customer API, before the body is looked at. */
export const bodyErrors = bodyErrorsOf('authenticated');

/** Responses of the whole application rather than of one operation. */
export const componentResponses: Record<string, ResponseObject> = {
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
};

export const securitySchemes: Record<string, SecuritySchemeObject> = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key: `Authorization: Bearer <API_KEY>`. Keys are shown once, when they are created.',
  },
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator\'s `METRICS_TOKEN` (not an API key), needed by `GET /metrics` only when the server sets one.',
  },
};

// ---------------------------------------------------------------- parameters

export const minLogPosition: ParameterObject = {
  name: 'X-Min-Log-Position',
  in: 'header',
  required: false,
  description:
    'Read-your-writes across instances: the `X-Log-Position` of an earlier write. The read waits (bounded) until ' +
    'this instance has applied it; when the wait runs out the answer carries `X-Read-Your-Writes: timeout`. Not a log position: 400.',
  schema: { type: 'string', pattern: DECIMAL_POSITION },
};

/** The `{id}` path parameter of a resource (`what`: "contact", "deal", …). */
export const idParameter = (what: string): ParameterObject => ({
  name: 'id',
  in: 'path',
  required: true,
  description: `The ${what} id.`,
  schema: { type: 'string', minLength: 1 },
});

export const pageParameter: ParameterObject = {
  name: 'page',
  in: 'query',
  required: false,
  schema: { type: 'integer', minimum: 1, default: 1 },
};

export const limitParameter: ParameterObject = {
  name: 'limit',
  in: 'query',
  required: false,
  schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
};

/** An ISO 8601 date or date-time (a date alone means midnight UTC). */
export const instant = (description: string): JsonSchema => ({
  description,
  type: 'string',
  anyOf: [{ format: 'date-time' }, { format: 'date' }],
});

/** `createdSince` and `updatedSince` of a list of `things` ("Contacts", "Deals"). */
export const sinceParameters = (things: string): ParameterObject[] => [
  {
    name: 'createdSince',
    in: 'query',
    required: false,
    schema: instant(`${things} created after this instant (ISO 8601; a date alone means midnight UTC).`),
  },
  {
    name: 'updatedSince',
    in: 'query',
    required: false,
    schema: instant(`${things} updated after this instant (ISO 8601; a date alone means midnight UTC).`),
  },
];

// ---------------------------------------------------------------- operations

/** An operation that needs an API key (with `permission`, or any valid key when null): adds security, 401/403/429/500. */
export const authenticated = (permission: Permission | null, operation: OperationObject): OperationObject => ({
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
    '403': permission ? forbidden(permission) : companySuspended,
    '429': tooManyRequests,
    '500': internalError('authenticated'),
  },
});

/**
 * An operation whose permission depends on what it is asked for (one of
 * `permissions` per item it returns, as its description says): records them in
 * `x-required-permissions`, adds security, 401/403/429/500.
 */
export const authenticatedPerItem = (permissions: readonly Permission[], operation: OperationObject): OperationObject => ({
  ...operation,
  'x-required-permissions': [...permissions],
  security: [{ bearerAuth: [] }],
  responses: {
    ...operation.responses,
    '401': unauthorized,
    '403': forbiddenOrSuspended(
      `The API key lacks a permission the request needs (one of ${permissions.map((p) => `\`${p}\``).join(', ')}; \`requiredPermission\` names it).`,
    ),
    '429': tooManyRequests,
    '500': internalError('authenticated'),
  },
});

/** `asOf` of a time-travel read of one `thing` ("contact", "deal"). */
export const asOfParameter = (thing: string): ParameterObject => ({
  name: 'asOf',
  in: 'query',
  required: false,
  description:
    `Time travel: the ${thing} as it was at this instant, folded from the events recorded at or before it ` +
    `(404 if the ${thing} did not exist yet, or was deleted then; an instant in the future gives the current state). ` +
    'An ISO 8601 date (midnight UTC) or a date-time with a zone; anything else: 422.',
  schema: instant('The instant to read the state at.'),
});

/** `page` and `limit` of an entity's history (the list bounds). */
export const historyParameters: readonly ParameterObject[] = [
  { ...pageParameter, description: 'Page of the history, 1-based.' },
  { ...limitParameter, description: 'Events per page, 1–200.' },
];

// ---------------------------------------------------------------- schema helpers

/** The rule of a name on input (src/shared/nameCharacters.ts), for the descriptions of name fields. */
export const NAME_CHARACTERS_RULE =
  'No bidirectional embedding, override or isolate characters (U+202A–U+202E, U+2066–U+2069); at least one visible character once ' +
  'whitespace and invisible characters (zero-width, soft hyphen, other format characters) are removed. LRM, RLM and ALM are allowed.';

export const text = (maxLength: number, description?: string): JsonSchema => ({
  type: 'string',
  maxLength,
  ...(description ? { description } : {}),
});

export const nullableText = (maxLength: number, description?: string): JsonSchema => ({
  type: ['string', 'null'],
  maxLength,
  ...(description ? { description } : {}),
});

/** `{success: true, data: <schema>}`. */
export const itemEnvelope = (schema: string): JsonSchema => ({
  type: 'object',
  required: ['success', 'data'],
  additionalProperties: false,
  properties: { success: { const: true }, data: schemaRef(schema) },
});

/** `{success: true, data: [<schema>], meta}`. */
export const listEnvelope = (schema: string): JsonSchema => ({
  type: 'object',
  required: ['success', 'data', 'meta'],
  additionalProperties: false,
  properties: {
    success: { const: true },
    data: { type: 'array', items: schemaRef(schema) },
    meta: schemaRef('PaginationMeta'),
  },
});

/**
 * One stored event of an entity's history (`GET /<things>/{id}/history`); `cases`
 * maps each event type to the schema of its `data`.
 */
export const historyEvent = (description: string, cases: Readonly<Record<string, JsonSchema>>): JsonSchema => ({
  type: 'object',
  description,
  required: ['type', 'revision', 'position', 'timestamp', 'schema', 'data', 'erasedFields', 'metadata'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: Object.keys(cases) },
    revision: { type: 'integer', minimum: 0, description: '0-based revision of the event in the entity\'s stream.' },
    position: { ...schemaRef('LogPosition'), description: 'The event\'s position in the whole log.' },
    timestamp: { ...schemaRef('Timestamp'), description: 'When the event was recorded.' },
    schema: schemaRef('HistorySchema'),
    data: {
      type: 'object',
      description:
        'The event\'s data in the current version of its type (shape per `type`): as stored when it was stored in that ' +
        'version, otherwise upcast from the version it was stored in (`schema.storedVersion`).',
    },
    erasedFields: {
      type: 'array',
      items: { type: 'string' },
      description:
        'The paths in `data` (dotted, `tags` for the whole list) of a person\'s values erased since the event was stored: ' +
        'each reads as `null`. Empty when nothing of it was erased.',
    },
    metadata: schemaRef('HistoryMetadata'),
  },
  oneOf: Object.entries(cases).map(([type, data]) => ({ type: 'object', properties: { type: { const: type }, data } })),
});

/** An error body: the common `Error` shape with its own `error` (and extra fields), closed. */
export const errorCase = (
  error: JsonSchema,
  extra: { required?: readonly string[]; properties?: Record<string, JsonSchema> } = {},
): JsonSchema => ({
  type: 'object',
  allOf: [schemaRef('Error')],
  ...(extra.required ? { required: extra.required } : {}),
  properties: { error, ...extra.properties },
  unevaluatedProperties: false,
});

/** A history's data of a record's delete (`ContactDeleted`): its id (`idField`), its company, when, and until when it can be restored. */
export const deletedEventData = (idField: string, description: string): JsonSchema => ({
  type: 'object',
  description,
  required: [idField, 'companyId', 'deletedAt', 'restorableUntil'],
  additionalProperties: false,
  properties: {
    [idField]: { type: 'string' },
    companyId: { type: 'string' },
    deletedAt: schemaRef('Timestamp'),
    restorableUntil: schemaRef('Timestamp'),
  },
});

/** A history's data of a record's restore (`ContactRestored`): its id, its company, when, and the record as it came back (`recordField`, of schema `recordSchema`). */
export const restoredEventData = (idField: string, recordField: string, recordSchema: string, description: string): JsonSchema => ({
  type: 'object',
  description,
  required: [idField, 'companyId', 'restoredAt', recordField],
  additionalProperties: false,
  properties: {
    [idField]: { type: 'string' },
    companyId: { type: 'string' },
    restoredAt: schemaRef('Timestamp'),
    [recordField]: schemaRef(recordSchema),
  },
});

// ---------------------------------------------------------------- schemas

export const schemas: Record<string, JsonSchema> = {
  Permission: {
    type: 'string',
    enum: [...EVERY_PERMISSION],
    description:
      'The seven permissions of the specification, and `contacts:erase`: erasing a contact for good, enough on its own (it needs neither ' +
      '`contacts:read` nor `contacts:write`), and held by a key only when it was named ("all" leaves it out).',
  },
  Timestamp: {
    type: 'string',
    format: 'date-time',
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
    description: 'ISO 8601, UTC, with milliseconds.',
    examples: ['2026-01-01T12:00:00.000Z'],
  },
  DeletedRecord: {
    type: 'object',
    description:
      'A contact or deal just deleted: it answers 404 and leaves every list, search and `recent` trigger. ' +
      '`POST …/{id}/restore` brings it back as it was until `restorableUntil` (`deletedAt` plus the server\'s ' +
      '`DELETED_RECORDS_RETENTION_DAYS`, 30 by default); after that it can no longer be restored.',
    required: ['id', 'deletedAt', 'restorableUntil'],
    additionalProperties: false,
    properties: {
      id: { type: 'string' },
      deletedAt: schemaRef('Timestamp'),
      restorableUntil: schemaRef('Timestamp'),
    },
  },
  DeletedRecordResponse: itemEnvelope('DeletedRecord'),
  LogPosition: {
    type: 'string',
    pattern: DECIMAL_POSITION,
    description: 'A position in the event log: a non-negative integer as a decimal string (it may exceed 2^53).',
    examples: ['4711'],
  },
  HistorySchema: {
    type: 'object',
    description:
      'Which schema version of its type the event was stored in, and which one `data` is shown in. An event stored in ' +
      'an older version is upcast to the current one (`storedVersion` < `version`); events written before versions ' +
      'were recorded (`versionRecorded: false`) have their stored version inferred from their shape.',
    required: ['version', 'storedVersion', 'versionRecorded'],
    additionalProperties: false,
    properties: {
      version: { type: 'integer', minimum: 1, description: 'The version `data` is shown in: the type\'s current one.' },
      storedVersion: { type: 'integer', minimum: 1, description: 'The version the event was stored in.' },
      versionRecorded: {
        type: 'boolean',
        description: 'True when the stored event names its version; false when it was written before versions were recorded.',
      },
    },
  },
  HistoryMetadata: {
    type: 'object',
    description:
      'Who caused a stored event: its `source`, the API key (`keyId`) or user (`userId`) when known, and the ' +
      '`correlationId` (the request id of an API request, as in `X-Request-Id`). Never a secret.',
    required: ['source', 'correlationId'],
    additionalProperties: false,
    properties: {
      source: {
        type: 'string',
        enum: ['api', 'cli', 'console', 'system', 'admin'],
        description: 'The customer API, the CLI, the customer console, the server itself, or the platform\'s admin API.',
      },
      keyId: { type: 'string' },
      userId: { type: 'string' },
      correlationId: { type: 'string' },
    },
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
  BadRequestError: errorCase({ const: 'Bad request' }),
  UnauthorizedError: errorCase({ enum: ['API key required in Authorization header', 'Invalid API key format', 'Invalid API key'] }),
  ForbiddenError: errorCase(
    { type: 'string', pattern: '^Permission denied: \\S+ required$' },
    {
      required: ['requiredPermission', 'availablePermissions'],
      properties: {
        requiredPermission: schemaRef('Permission'),
        availablePermissions: { type: 'array', items: schemaRef('Permission') },
      },
    },
  ),
  CompanySuspendedError: errorCase({ const: 'Company suspended' }),
  NotFoundError: errorCase({ enum: ['Contact not found', 'Not found'] }),
  MethodNotAllowedError: errorCase({ const: 'Method not allowed' }),
  PayloadTooLargeError: errorCase({ const: 'Payload too large' }),
  UnsupportedMediaTypeError: errorCase({ const: 'Unsupported media type' }),
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
  RateLimitError: errorCase(
    { const: 'Rate limit exceeded' },
    {
      required: ['message', 'retryAfter', 'limits'],
      properties: {
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
    },
  ),
  FailedCredentialsError: errorCase(
    { const: 'Rate limit exceeded' },
    {
      required: ['message', 'code', 'retryAfter', 'limits'],
      properties: {
        message: { type: 'string', description: 'That too many credentials from this address were refused, and when to retry.' },
        code: { const: 'TOO_MANY_FAILED_CREDENTIALS' },
        retryAfter: { type: 'integer', minimum: 1, description: 'Seconds until the window ends (also in `Retry-After`).' },
        limits: {
          type: 'object',
          required: ['failedCredentials', 'windowSeconds'],
          additionalProperties: false,
          properties: {
            failedCredentials: { type: 'integer', minimum: 1, description: 'Refused credentials a client address may present per window (`FAILED_CREDENTIALS_LIMIT`).' },
            windowSeconds: { type: 'integer', minimum: 1, description: 'The window (`FAILED_CREDENTIALS_WINDOW_SECONDS`).' },
          },
        },
      },
    },
  ),
  ServiceUnavailableError: errorCase(
    { const: 'Service unavailable' },
    {
      required: ['message', 'code'],
      properties: {
        message: { type: 'string', description: 'What is unavailable, and whether anything was changed.' },
        code: { enum: ['STARTING', 'READ_MODELS_BEHIND', 'CONCURRENT_CHANGES', 'STORAGE_FULL', 'STORE_BUSY', 'STORE_INTERRUPTED'] },
      },
    },
  ),
  InternalError: errorCase(
    { const: 'Internal server error' },
    {
      required: ['requestId'],
      properties: { requestId: { type: 'string', description: 'The request id, as in `X-Request-Id`.' } },
    },
  ),
};
