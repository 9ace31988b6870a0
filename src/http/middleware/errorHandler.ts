import type { Middleware } from 'koa';
import type { Logger } from '../../application/ports/Logger.js';
import type { Clock } from '../../shared/Clock.js';
import { HttpError, errorBody } from '../HttpError.js';
import { fromPortError } from '../errorTable.js';

/** Errors a client caused: ours, or Koa's own (which carry a 4xx status and `expose`). */
const clientErrorOf = (error: unknown): HttpError | null => {
  if (error instanceof HttpError) return error;
  if (typeof error !== 'object' || error === null) return null;
  const { status, expose } = error as { status?: unknown; expose?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500 || expose !== true) return null;
  return new HttpError(status, 'Request error');
};

/**
 * The one place that writes error bodies, in the spec's shape. Anything
 * unexpected becomes a 500 with no internals, logged with the request id.
 */
export const errorHandler =
  (logger: Logger, clock: Clock): Middleware =>
  async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const clientError = clientErrorOf(error);
      if (clientError) {
        ctx.status = clientError.status;
        ctx.body = errorBody(clientError, clock.now());
        for (const [name, value] of Object.entries(clientError.options.headers ?? {})) ctx.set(name, value);
        return;
      }
      const requestId = String(ctx.state.requestId ?? '');
      const unavailable = fromPortError(error);
      if (unavailable) {
        // The operator must hear of it (a full disk); the client gets 503 and when to retry.
        logger.error({ err: error, requestId, method: ctx.method, path: ctx.path }, 'request refused: a store cannot take writes');
        ctx.status = unavailable.status;
        ctx.body = errorBody(unavailable, clock.now());
        for (const [name, value] of Object.entries(unavailable.options.headers ?? {})) ctx.set(name, value);
        return;
      }
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
