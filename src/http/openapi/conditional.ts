import { errorCase, headersOf, type ApiModule } from './common.js';
import type { HeaderObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject } from './types.js';

/** ETags on reads of one contact or deal, `If-None-Match` (304) on them, `If-Match` (412) on their writes. */

const etagHeader = (what: string): HeaderObject => ({
  description:
    `A strong ETag of the ${what}: \`"<revision>-<position>"\`, its stream's revision and the log position of the last ` +
    'change it shows. Send it as `If-Match` on the write, or `If-None-Match` on the next read. Absent on `asOf` reads.',
  required: false,
  schema: { type: 'string', pattern: '^"(0|[1-9][0-9]*)-(0|[1-9][0-9]*)"$' },
});

const ifNoneMatch: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'ETags (or `*`) of a copy the client holds: when one matches (weak comparison, RFC 9110), 304 without a body.',
  schema: { type: 'string' },
};

const ifMatch = (what: string, guards: string): ParameterObject => ({
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    `Write only if the ${what} has not changed since the client read it: the ETag it got (a list, or \`*\` for any). ` +
    `${guards} The revision in the ETag is the append's expected revision, so no other write can come in between. ` +
    'Strong comparison (RFC 9110): a weak or foreign tag never matches. Without the header the write is unconditional.',
  schema: { type: 'string' },
});

const isReference = (value: ResponseObject | ReferenceObject): value is ReferenceObject => '$ref' in value;

const withHeader = (response: ResponseObject | ReferenceObject | undefined, name: string, header: HeaderObject) =>
  response && !isReference(response) ? { ...response, headers: { ...response.headers, [name]: header } } : response;

/** A GET of one `what` that answers with an ETag and honours `If-None-Match`. */
export const withEntityTag = (what: string, operation: OperationObject): OperationObject => ({
  ...operation,
  parameters: [...(operation.parameters ?? []), ifNoneMatch],
  responses: {
    ...operation.responses,
    '200': withHeader(operation.responses['200'], 'ETag', etagHeader(what))!,
    '304': {
      description: `\`If-None-Match\` named the ${what}'s current ETag: not modified, no body.`,
      headers: { ...headersOf('authenticated'), ETag: { ...etagHeader(what), required: true } },
    },
  },
});

/** A write of one `what` that honours `If-Match` (`guards` says what the revision covers). */
export const withIfMatch = (what: string, guards: string, operation: OperationObject): OperationObject => ({
  ...operation,
  parameters: [...(operation.parameters ?? []), ifMatch(what, guards)],
  responses: {
    ...operation.responses,
    '200': withHeader(operation.responses['200'], 'ETag', etagHeader(what))!,
    '412': {
      description: `\`If-Match\` named no current ETag of the ${what}: it changed since; nothing was written (\`Precondition failed\`).`,
      headers: headersOf('authenticated'),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/PreconditionFailedError' } } },
    },
  },
});

export const conditionalModule: ApiModule = {
  tags: [],
  paths: {},
  schemas: {
    PreconditionFailedError: errorCase(
      { const: 'Precondition failed' },
      { required: ['message', 'code'], properties: { message: { type: 'string' }, code: { const: 'PRECONDITION_FAILED' } } },
    ),
  },
};
