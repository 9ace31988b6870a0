import {
  FAILED_CREDENTIALS_429,
  bodyErrorsOf,
  errorCase,
  headersOf,
  idParameter,
  internalError,
  json,
  jsonResponse,
  retryAfterHeader,
  schemaRef,
  validationFailed,
  writePositionHeaders,
} from '../common.js';
import { withIdempotency } from '../idempotency.js';
import type { JsonSchema, OperationObject, ParameterObject, ResponseObject, SecuritySchemeObject } from '../types.js';

/**
 * The admin API's building blocks: the same shapes as the customer API's
 * (`../common.ts`: error bodies, pagination, rate-limit headers), said of an
 * admin token instead of an API key.
 */

export const ADMIN_TOKEN_REFUSALS = ['Admin token required in Authorization header', 'Invalid admin token format', 'Invalid admin token'] as const;

export const adminSecuritySchemes: Record<string, SecuritySchemeObject> = {
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An admin token of the platform (`chradm_…`), made with `npm run chronicle -- admin-tokens create`: `Authorization: Bearer <ADMIN_TOKEN>`. ' +
      'Shown once, when it is created. A customer API key is refused here, and an admin token on the customer API.',
  },
};

export const adminUnauthorized: ResponseObject = {
  description:
    'No admin token (`Admin token required in Authorization header`); a malformed one, or a customer API key ' +
    '(`Invalid admin token format`, the `message` says which); or an unknown or revoked one (`Invalid admin token`).',
  headers: headersOf('public'),
  content: json(schemaRef('AdminUnauthorizedError')),
};

export const adminTooManyRequests: ResponseObject = jsonResponse(
  'Rate limit exceeded: the hourly or daily request limit of this admin token (`ADMIN_RATE_LIMIT_HOURLY`, ' +
    '`ADMIN_RATE_LIMIT_DAILY`; the `message` names which and when it resets), or too many concurrent requests ' +
    '(`ADMIN_RATE_LIMIT_CONCURRENT`, `retryAfter` 1). ' +
    FAILED_CREDENTIALS_429('admin tokens'),
  { oneOf: [schemaRef('RateLimitError'), schemaRef('FailedCredentialsError')] },
  'admin-maybe-before-limits',
  { 'Retry-After': retryAfterHeader },
);

/** The 503 every admin operation may answer. */
export const adminServiceUnavailable: ResponseObject = jsonResponse(
  'Temporary outage. `code` says why: `STARTING` (the process is still catching up with the log after a start), ' +
    '`READ_MODELS_BEHIND` (the admin token is not known yet and the read models stayed behind the log for the whole ' +
    'wait: a token issued a moment ago cannot be told from an unknown one yet), or for a write that cannot be taken ' +
    'right now `CONCURRENT_CHANGES`, `STORAGE_FULL`, `STORE_BUSY`. Nothing was stored; send the same request again ' +
    'after `Retry-After` seconds. Only `STORE_INTERRUPTED` says the change may have been made (the connection to the ' +
    'database broke during the write, and its outcome could not be checked): read the record before sending it ' +
    'again.',
  'ServiceUnavailableError',
  'admin-maybe-before-limits',
  { 'Retry-After': retryAfterHeader },
);

/** An operation of the admin API: an admin token needed; 401, 429 and 500 listed (503 is added to every one). */
export const adminOperation = (operation: OperationObject): OperationObject => ({
  ...operation,
  security: [{ adminToken: [] }],
  responses: {
    ...operation.responses,
    '401': adminUnauthorized,
    '429': adminTooManyRequests,
    '500': internalError('admin'),
  },
});

/** A creating POST of the admin API: `Idempotency-Key` honoured, scoped to the admin token. */
export const adminCreate = (operation: OperationObject): OperationObject =>
  withIdempotency(adminOperation(operation), { scope: 'the admin token', access: 'admin' });

/** The `{id}` of the company a sub-resource belongs to. */
export const companyIdParameter: ParameterObject = idParameter('company');

export const companyNotFound: ResponseObject = jsonResponse('No company with this id (`Company not found`).', 'CompanyNotFoundError', 'admin');

/** The 409 of what a suspended company cannot have. */
export const companySuspendedConflict = (what: string): ResponseObject =>
  jsonResponse(`The company is suspended (\`Company suspended\`, \`code\` \`COMPANY_SUSPENDED\`): ${what}`, 'CompanySuspendedConflictError', 'admin');

/** The answers of a request with a JSON body before it is looked at, and its 422. */
export const adminBodyErrors = (what: string) => ({
  ...bodyErrorsOf('admin'),
  '422': validationFailed(what, 'admin'),
});

/** A 2xx of a write: its log position. */
export const adminWritten = (description: string, schema: string, appended: boolean): ResponseObject =>
  jsonResponse(description, schema, 'admin', writePositionHeaders(appended));

export const adminSchemas: Record<string, JsonSchema> = {
  AdminUnauthorizedError: errorCase({ enum: [...ADMIN_TOKEN_REFUSALS] }),
  CompanyNotFoundError: errorCase({ const: 'Company not found' }),
  CompanySuspendedConflictError: errorCase({ const: 'Company suspended' }),
};
