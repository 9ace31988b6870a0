import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../application/ports/Logger.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What the request envelope reports each request to (`ChronicleMetrics.observeRequest`). */
export type ObserveRequest = (method: string, route: string, status: number, seconds: number) => void;

/** The route label of a request no route matched. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Methods reported as themselves; anything else Node's parser accepts is `OTHER`, so the label stays bounded. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The metrics label of a request's route: the template it matched
 * (`/contacts/:id`, without the base path), which the route table leaves in
 * `ctx.state.route`, also for a path that exists but not with this method (405);
 * else `unmatched`, so that raw paths (and the ids in them) never become labels.
 */
export const routeTemplate = (template: unknown): string => (typeof template === 'string' ? template : UNMATCHED_ROUTE);

/** What `Strict-Transport-Security` says (HSTS_MAX_AGE_SECONDS, HSTS_INCLUDE_SUBDOMAINS). */
export interface HstsSettings {
  /** How long a browser keeps to HTTPS for this host after a response; 0: no header. */
  readonly maxAgeSeconds: number;
  /** Also every subdomain of this host: only when the operator knows them all to serve HTTPS. */
  readonly includeSubDomains: boolean;
}

/** The `Strict-Transport-Security` value of `settings`, or null when none is sent (a max-age of 0). */
export const strictTransportSecurity = (settings: HstsSettings): string | null =>
  settings.maxAgeSeconds > 0 ? `max-age=${settings.maxAgeSeconds}${settings.includeSubDomains ? '; includeSubDomains' : ''}` : null;

export interface RequestEnvelopeDeps {
  readonly logger: Logger;
  /** Where each request is counted and timed; absent in tests that do not need it. */
  readonly observe?: ObserveRequest;
  /** True once a graceful shutdown began: responses then carry `Connection: close`. */
  readonly draining?: () => boolean;
  /** `Strict-Transport-Security` of every response served over TLS (see `strictTransportSecurity`); absent: none. */
  readonly strictTransportSecurity?: string | null;
}

/**
 * What every request gets, around everything else (the error bodies included),
 * in one middleware so that a request pays for one more step, not four:
 *
 * - **`X-Request-Id`** on every response: the caller's own (when it is a safe
 *   token) or a new UUID. It is also the correlation id of the events a request causes.
 * - **`Strict-Transport-Security`** on every response served over TLS: Chronicle's
 *   own, or a proxy's as `X-Forwarded-Proto: https` says with TRUST_PROXY (Koa's
 *   `ctx.secure`). Never over plain HTTP, where a browser would ignore it anyway.
 *   Set before anything runs, so error answers carry it too.
 * - **`Connection: close`** once a graceful shutdown began, so keep-alive clients
 *   send no other request on the connection.
 * - **One structured log line** (at `info`): no headers, no bodies, so no secret can
 *   leak. `ip` and `protocol` are the client's as the proxy reported them when
 *   TRUST_PROXY is on, else the connection's own.
 * - **Request metrics**: counted and timed by method, route template and status
 *   (see `routeTemplate`), errors with their status.
 */
export const requestEnvelope = (deps: RequestEnvelopeDeps): Middleware => {
  const { logger, observe, draining } = deps;
  const hsts = deps.strictTransportSecurity ?? null;
  const logging = logger.isLevelEnabled('info');
  return async (ctx, next) => {
    const started = performance.now();
    const given = ctx.get('X-Request-Id');
    const id = SAFE_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    if (hsts !== null && ctx.secure) ctx.set('Strict-Transport-Security', hsts);
    try {
      await next();
    } finally {
      if (draining?.()) ctx.set('Connection', 'close');
      const ms = performance.now() - started;
      if (logging) {
        logger.info(
          {
            requestId: id,
            method: ctx.method,
            path: ctx.path,
            status: ctx.status,
            ip: ctx.ip,
            protocol: ctx.protocol,
            ms: Math.round(ms * 10) / 10,
            keyId: ctx.state.auth?.keyId,
          },
          'request',
        );
      }
      if (observe) {
        const method = KNOWN_METHODS.has(ctx.method) ? ctx.method : 'OTHER';
        observe(method, routeTemplate(ctx.state.route), ctx.status, ms / 1000);
      }
    }
  };
};
