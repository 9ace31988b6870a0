import bodyParser from 'koa-bodyparser';
import type { Middleware } from 'koa';
import { HttpError } from '../HttpError.js';
import { forbiddenKeyOf } from '../body/forbiddenKeyOf.js';
import { jsonContentTypeError } from '../body/jsonContentTypeError.js';

export const BODY_LIMIT = '1mb';
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

const hasBody = (headers: Record<string, string | string[] | undefined>): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * koa-bodyparser hands every option to its parser (co-body): `onProtoPoisoning:
 * 'ignore'` leaves forbidden keys to `forbiddenKeyOf`, which names them (the
 * parser's own refusal says only that the JSON is invalid, which is untrue). A new
 * object for each parser: koa-bodyparser clears `detectJSON` and `onerror` on the
 * object it is given.
 */
const parserOptions = (): bodyParser.Options & { readonly onProtoPoisoning: 'ignore' } => ({
  enableTypes: ['json'],
  // The Content-Type was checked before (jsonContentTypeError): the body is read as JSON.
  detectJSON: () => true,
  jsonLimit: BODY_LIMIT,
  strict: false,
  onProtoPoisoning: 'ignore',
  // Parser errors become the spec's bodies here, so nothing of the raw body reaches a log.
  onerror: (error) => {
    const status = (error as { status?: unknown }).status;
    if (status === 413) throw new HttpError(413, 'Payload too large', `The request body exceeds the limit of ${BODY_LIMIT.toUpperCase()}.`);
    if (status === 415) throw new HttpError(415, 'Unsupported media type', 'Send the body as JSON with Content-Type: application/json.');
    throw new HttpError(400, 'Bad request', 'The request body is not valid JSON.', { code: 'INVALID_JSON' });
  },
});

/**
 * JSON bodies only: a POST/PUT/PATCH (or a DELETE that carries a body) must say
 * `Content-Type: application/json` (`jsonContentTypeError`: else 415, or 400 for a
 * malformed header); at most 1 MB (else 413); malformed JSON is a 400
 * `INVALID_JSON`, a key that could reach a prototype a 400 `FORBIDDEN_KEY` naming it.
 * The parsed body is `ctx.request.body` (`{}` for requests that carry none).
 */
export const jsonBody = (): Middleware => {
  const parse = bodyParser(parserOptions());
  return async (ctx, next) => {
    const needsJson = WRITES.has(ctx.method) || (ctx.method === 'DELETE' && hasBody(ctx.req.headers));
    // Reads carry no body: nothing to parse.
    if (!needsJson) {
      ctx.request.body = {};
      return next();
    }
    const refused = jsonContentTypeError(ctx.req.headers['content-type']);
    if (refused) throw refused;
    await parse(ctx, async () => {
      const raw: unknown = ctx.request.rawBody;
      const forbidden = forbiddenKeyOf(ctx.request.body, typeof raw === 'string' ? raw : '');
      if (forbidden) {
        throw new HttpError(400, 'Bad request', `The request body contains the key "${forbidden.key}" (at ${forbidden.path}), which is not allowed.`, {
          code: 'FORBIDDEN_KEY',
          details: { key: forbidden.key, path: forbidden.path },
        });
      }
      await next();
    });
  };
};
