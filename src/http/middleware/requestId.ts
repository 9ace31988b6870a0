import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every response carries `X-Request-Id`: the caller's own (when it is a safe
 * token) or a new UUID. It is also the correlation id of the events a request causes.
 */
export const requestId = (): Middleware => async (ctx, next) => {
  const given = ctx.get('X-Request-Id');
  const id = SAFE_ID.test(given) ? given : randomUUID();
  ctx.state.requestId = id;
  ctx.set('X-Request-Id', id);
  await next();
};
