import bodyParser from 'koa-bodyparser';
import type { Middleware } from 'koa';
import { HttpError } from '../HttpError.js';

export const BODY_LIMIT = '1mb';
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

const hasBody = (headers: Record<string, string | string[] | undefined>): boolean =>
  headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/**
 * JSON bodies only: a POST/PUT/PATCH (or a DELETE that carries a body) must say
 * `Content-Type: application/json` (else 415); at most 1 MB (else 413); malformed
 * JSON is a 400. The parsed body is `ctx.request.body` (`{}` when empty).
 */
export const jsonBody = (): Middleware => {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: BODY_LIMIT,
    strict: false,
    // Parser errors become the spec's bodies here, so nothing of the raw body reaches a log.
    onerror: (error) => {
      const status = (error as { status?: unknown }).status;
      if (status === 413) throw new HttpError(413, 'Payload too large', `The request body exceeds the limit of ${BODY_LIMIT.toUpperCase()}.`);
      if (status === 415) throw new HttpError(415, 'Unsupported media type', 'Send the body as JSON with Content-Type: application/json.');
      throw new HttpError(400, 'Bad request', 'The request body is not valid JSON.');
    },
  });
  return async (ctx, next) => {
    const needsJson = WRITES.has(ctx.method) || (ctx.method === 'DELETE' && hasBody(ctx.req.headers));
    // Reads carry no body: nothing to parse.
    if (!needsJson) {
      ctx.request.body = {};
      return next();
    }
    if (!ctx.is('application/json')) {
      throw new HttpError(415, 'Unsupported media type', 'Send the body as JSON with Content-Type: application/json.');
    }
    await parse(ctx, next);
  };
};
