import type { Middleware } from 'koa';
import type { Logger } from '../../application/ports/Logger.js';

/**
 * One structured line per request: no headers, no bodies, so no secret can leak.
 * `ip` and `protocol` are the client's as the proxy reported them when
 * TRUST_PROXY is on, else the connection's own.
 */
export const requestLog = (logger: Logger): Middleware => {
  if (!logger.isLevelEnabled('info')) return (_ctx, next) => next();
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      logger.info(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ip: ctx.ip,
          protocol: ctx.protocol,
          ms: Math.round((performance.now() - started) * 10) / 10,
          keyId: ctx.state.auth?.keyId,
        },
        'request',
      );
    }
  };
};
