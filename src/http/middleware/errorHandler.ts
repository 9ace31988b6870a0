import type { Middleware } from 'koa';
import type { Logger } from '../../application/ports/Logger.js';
import type { Clock } from '../../shared/Clock.js';
import { StoreUnavailableError } from '../../application/ports/StoreUnavailableError.js';
import { temporaryFailureOf } from '../errorTable.js';
import { HttpError, errorBody } from '../HttpError.js';

/** Errors a client caused: ours, or Koa's own (which carry a 4xx status and `expose`). */
const clientErrorOf = (error: unknown): HttpError | null => {
  if (error instanceof HttpError) return error;
  if (typeof error !== 'object' || error === null) return null;
  const { status, expose } = error as { status?: unknown; expose?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500 || expose !== true) return null;
  return new HttpError(status, 'Request error');
};

/**
 * The one place that writes error bodies, in the spec's shape. A temporary
 * failure (a record too busy to write) is a 503 with Retry-After; anything
 * unexpected becomes a 500 with no internals, logged with the request id.
 */
export const errorHandler =
  (logger: Logger, clock: Clock): Middleware =>
  async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const temporary = temporaryFailureOf(error);
      if (temporary) {
        // A full store needs the operator; a busy record or lock only the client's retry.
        const needsOperator = error instanceof StoreUnavailableError && error.reason === 'storage_full';
        const line = { err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path };
        if (needsOperator) logger.error(line, 'request refused: a store cannot take writes');
        else logger.warn(line, 'temporary failure; the client may retry');
      }
      const clientError = clientErrorOf(error) ?? temporary;
      if (clientError) {
        ctx.status = clientError.status;
        ctx.body = errorBody(clientError, clock.now());
        for (const [name, value] of Object.entries(clientError.options.headers ?? {})) ctx.set(name, value);
        return;
      }
      const requestId = String(ctx.state.requestId ?? '');
      logger.error({ err: error, requestId, method: ctx.method, path: ctx.path }, 'request failed');
      ctx.status = 500;
      ctx.body = errorBody(
        new HttpError(500, 'Internal server error', `Something went wrong on our side. Quote request id ${requestId} when you contact support.`, {
          extras: { requestId },
        }),
        clock.now(),
      );
    }
  };
