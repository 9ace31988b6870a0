import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import { HttpError } from '../HttpError.js';

export interface MetricsRouteDeps {
  /** The Prometheus text exposition (`ChronicleMetrics.render`). */
  readonly render: () => Promise<string>;
  readonly contentType: string;
  /** METRICS_TOKEN: when set, required as `Authorization: Bearer <token>`. */
  readonly token: string | undefined;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Compares digests in constant time, so the answer's timing tells nothing about the token. */
const sameToken = (presented: string, expected: string): boolean => timingSafeEqual(digest(presented), digest(expected));

/**
 * GET /metrics in the Prometheus text format. Takes no API key (Prometheus has
 * none to send); with METRICS_TOKEN set, only the bearer of that token gets an
 * answer (401 otherwise). Not meant to be reachable from the internet.
 */
export const metricsRoutes = (deps: MetricsRouteDeps): Router => {
  const router = new Router();
  router.get('/metrics', async (ctx) => {
    if (deps.token !== undefined) {
      const presented = BEARER.exec(ctx.get('Authorization'))?.[1];
      if (presented === undefined || !sameToken(presented, deps.token)) {
        throw new HttpError(401, 'Invalid metrics token', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>".', {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        });
      }
    }
    ctx.type = deps.contentType;
    ctx.body = await deps.render();
  });
  return router;
};
