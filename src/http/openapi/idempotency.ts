import { errorCase, headersOf, schemaRef, type Access, type ApiModule } from './common.js';
import type { HeaderObject, JsonSchema, OperationObject, ParameterObject, ResponseObject, ReferenceObject } from './types.js';

/** `Idempotency-Key` on the creating POSTs, and what it adds to their responses. */

/** The header, its keys scoped to `scope` ("the company of the API key"). */
const idempotencyKeyParameterFor = (scope: string): ParameterObject => ({
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry of this request safe: 1–255 printable ASCII characters (a UUID is a good key), chosen by the ' +
    `client, unique per request it means, scoped to ${scope}. The IETF draft's quoted form ` +
    '(`"…"`) is accepted too. Malformed: 422 with `details["Idempotency-Key"]` (`code` `INVALID_IDEMPOTENCY_KEY`).',
  schema: { type: 'string', minLength: 1, maxLength: 257, pattern: '^[\\x20-\\x7e]+$' },
});

export const idempotencyKeyParameter: ParameterObject = idempotencyKeyParameterFor('the company of the API key');

export const replayedHeader: HeaderObject = {
  description: 'Present (`true`) when this response is the stored response of an earlier request with the same `Idempotency-Key`.',
  required: false,
  schema: { const: 'true' },
};

const IDEMPOTENCY_DESCRIPTION = `
**Idempotency-Key.** With the header, the first request with a key runs and its
response (status, body, \`X-Log-Position\`) is stored for 24 hours, durably and for
every instance. A request with the same key and the same request (method, path and
body, compared as canonical JSON) gets that response again, with
\`Idempotent-Replayed: true\`, and creates nothing. Stored: the 2xx and the refusals
the write decided (400, 404, 409); not stored: 422 for invalid input, 403, 5xx (the
key may be sent again). The same key with another body: 422 (\`code\`
\`IDEMPOTENCY_KEY_REUSED\`); while the first request is still running: 409 \`Request
in progress\` (\`code\` \`IDEMPOTENCY_KEY_IN_USE\`, \`Retry-After\`).
`.trim();

const inProgress: JsonSchema = schemaRef('IdempotencyInProgressError');

const isReference = (value: ResponseObject | ReferenceObject): value is ReferenceObject => '$ref' in value;

/** A response that may also be a replay: the `Idempotent-Replayed` header added. */
const replayable = (response: ResponseObject): ResponseObject => ({
  ...response,
  headers: { ...response.headers, 'Idempotent-Replayed': replayedHeader },
});

/** The 409: the operation's own (if any, now also replayable) or the in-progress one. */
const conflict = (own: ResponseObject | undefined, access: Access): ResponseObject => {
  const retryAfter: HeaderObject = { description: 'Seconds to wait before retrying (in-progress only).', required: false, schema: { type: 'integer', minimum: 1 } };
  const ownSchema = own?.content?.['application/json']?.schema;
  return {
    description: [own?.description, 'A request with the same `Idempotency-Key` is still running (`Request in progress`).']
      .filter(Boolean)
      .join(' Or: '),
    headers: { ...(own?.headers ?? headersOf(access)), 'Idempotent-Replayed': replayedHeader, 'Retry-After': retryAfter },
    content: { 'application/json': { schema: ownSchema ? { oneOf: [ownSchema, inProgress] } : inProgress } },
  };
};

/** Whose keys a route's keys are one of, and whose answers its own are. */
export interface IdempotencyPlace {
  readonly scope: string;
  readonly access: Access;
}

const CUSTOMER_API: IdempotencyPlace = { scope: 'the company of the API key', access: 'authenticated' };

/** A creating POST that honours `Idempotency-Key`: the header, the replay header on stored statuses, the 409. */
export const withIdempotency = (operation: OperationObject, place: IdempotencyPlace = CUSTOMER_API): OperationObject => {
  const responses: Record<string, ResponseObject | ReferenceObject> = { ...operation.responses };
  for (const status of ['200', '201', '400', '404']) {
    const response = responses[status];
    if (response && !isReference(response)) responses[status] = replayable(response);
  }
  const own = responses['409'];
  responses['409'] = conflict(own && !isReference(own) ? own : undefined, place.access);
  return {
    ...operation,
    description: [operation.description, IDEMPOTENCY_DESCRIPTION].filter(Boolean).join('\n\n'),
    parameters: [...(operation.parameters ?? []), place === CUSTOMER_API ? idempotencyKeyParameter : idempotencyKeyParameterFor(place.scope)],
    responses,
  };
};

export const idempotencyModule: ApiModule = {
  tags: [],
  paths: {},
  schemas: {
    IdempotencyInProgressError: errorCase(
      { const: 'Request in progress' },
      { required: ['message', 'code'], properties: { message: { type: 'string' }, code: { const: 'IDEMPOTENCY_KEY_IN_USE' } } },
    ),
  },
};
