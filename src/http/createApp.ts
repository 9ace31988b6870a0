import Koa, { type Middleware } from 'koa';
import type { FailedCredentials } from '../application/credentials/FailedCredentials.js';
import type Router from '@koa/router';
import type { Logger } from '../application/ports/Logger.js';
import type { Clock } from '../shared/Clock.js';
import { HttpError } from './HttpError.js';
import { RouteTable } from './routeTable.js';
import { authenticate, type VerifyApiKey } from './middleware/authenticate.js';
import { errorHandler } from './middleware/errorHandler.js';
import { jsonBody } from './middleware/jsonBody.js';
import { consistentReads, type ReplicaRouting } from './middleware/consistentReads.js';
import type { ReadModelProgress } from '../application/subscriptions/ReadModelProgress.js';
import type { AnsweredWrites } from '../application/subscriptions/AnsweredWrites.js';
import { requestEnvelope, strictTransportSecurity, type HstsSettings, type ObserveRequest } from './middleware/requestEnvelope.js';
import { healthRoutes, readinessRoutes, type HealthDeps } from './routes/health.js';
import { metricsRoutes, type MetricsRouteDeps } from './routes/metrics.js';
import type { Readiness } from '../ops/readiness.js';
import compose from 'koa-compose';

/** Routes behind a credential: what runs before each, once it matched. */
interface GuardedRoutes {
  /** Runs after authentication (rate limits); absent in tests that do not need it. */
  readonly rateLimit?: Middleware;
  /** Resource routes: every one needs the credential. */
  readonly routers: readonly Router[];
  /** Honours X-Min-Log-Position on reads. */
  readonly progress?: ReadModelProgress;
  /** True while the process is still starting (read models catching up): resource routes answer 503 `STARTING`. */
  readonly starting?: () => boolean;
  readonly readYourWritesTimeoutMs?: number;
  /** The creates this instance answered before their read models applied them: a read of their company waits for them. */
  readonly answeredWrites?: AnsweredWrites;
  /** The GET routes (templates) that look first and wait for the company's creates only on a miss (`findAfterCreates`). */
  readonly findsFirst?: ReadonlySet<string>;
  /** Where GETs read when the read models have a replica (POSTGRES_READ_URL); absent: from the read models as they are. */
  readonly replica?: ReplicaRouting;
}

/** The customer API: every route needs an API key. */
export interface ApiDeps extends GuardedRoutes {
  readonly verifyApiKey: VerifyApiKey;
  /** Where refused API keys are counted per client address (429 past the limit); absent: not counted. */
  readonly failedCredentials?: FailedCredentials;
}

/** The admin API (`/admin`): every route needs an admin token, checked by `authenticate` (`authenticateAdmin`). */
export interface AdminApiDeps extends GuardedRoutes {
  readonly authenticate: Middleware;
}

/** Where no route matches a path under `under` (without the base path), `answer` runs instead of the JSON 404. */
export interface UnmatchedPaths {
  readonly under: string;
  readonly answer: readonly Middleware[];
}

export interface AppDeps {
  readonly logger: Logger;
  /** Where the request lines go (default: `logger`); they hold no secret field, so it may skip redaction. */
  readonly requestLogger?: Logger;
  readonly clock: Clock;
  readonly basePath: string;
  readonly trustProxy: boolean;
  /** `Strict-Transport-Security` on every response served over TLS; absent: none (tests that do not need it). */
  readonly hsts?: HstsSettings;
  readonly health: HealthDeps;
  /** GET /ready; absent in tests that do not need it. */
  readonly ready?: () => Promise<Readiness>;
  /** GET /metrics and the request metrics; absent in tests that do not need them. */
  readonly metrics?: MetricsRouteDeps & { readonly observe: ObserveRequest };
  /** True once a graceful shutdown began: responses then carry `Connection: close`. */
  readonly draining?: () => boolean;
  /** Routes without an API key (documentation), mounted after the operational routes. */
  readonly publicRouters?: readonly Router[];
  /** Routes with a way in of their own (the customer console: its session, not an API key), each behind its `before`. */
  readonly mounted?: readonly { readonly router: Router; readonly before: readonly Middleware[] }[];
  /**
   * Paths no route matches, answered by their own middleware rather than the API's JSON 404 when they
   * lie under `under` (without the base path): the console answers a page a browser can show.
   */
  readonly unmatched?: readonly UnmatchedPaths[];
  readonly api?: ApiDeps;
  readonly admin?: AdminApiDeps;
}

/**
 * Until the start completes the read models may not hold even the API keys: a
 * resource route answers 503 `STARTING` with `Retry-After`, never a wrong 401 or 404.
 */
const whileStarting =
  (starting: () => boolean): Middleware =>
  (_ctx, next) => {
    if (starting()) {
      throw new HttpError(503, 'Service unavailable', 'Chronicle is starting: its read models are catching up with the log. Retry in a moment.', {
        code: 'STARTING',
        headers: { 'Retry-After': '1' },
      });
    }
    return next();
  };

/** What runs before a guarded route once it matched: the start gate, authentication, rate limits, the JSON body, read-your-writes. */
const guard = (group: GuardedRoutes, authentication: Middleware): Middleware[] => [
  ...(group.starting ? [whileStarting(group.starting)] : []),
  authentication,
  ...(group.rateLimit ? [group.rateLimit] : []),
  jsonBody(),
  ...(group.progress ? [consistentReads(group.progress, group.readYourWritesTimeoutMs ?? 5000, group.answeredWrites, group.findsFirst, group.replica)] : []),
];

/**
 * The Koa application. Order: the request envelope (request id, HSTS over TLS,
 * `Connection: close` while draining, request log, request metrics) → error
 * bodies → routes under the base path. Authenticated routes (the customer API's
 * with an API key, the admin API's with an admin token) run authentication, rate
 * limiting and JSON body parsing only once a route matched, so an unknown path is
 * a 404 for anyone and no body is parsed for an unauthenticated caller.
 *
 * No CORS headers, ever: API keys must not live in browser code, so no browser
 * page should be able to call this API.
 */
export const createApp = (deps: AppDeps): Koa => {
  // Behind a TLS-terminating proxy (TRUST_PROXY): the protocol from X-Forwarded-Proto, and the
  // client address from X-Forwarded-For's last entry, the one our proxy added (any entry
  // before it came from the client and may be forged).
  const app = new Koa({ proxy: deps.trustProxy, maxIpsCount: 1 });
  // Errors are answered by errorHandler; Koa's default printer would only duplicate them.
  app.silent = true;

  const routes = new RouteTable(deps.basePath);
  routes.add(healthRoutes(deps.health));
  if (deps.ready) routes.add(readinessRoutes(deps.ready));
  if (deps.metrics) routes.add(metricsRoutes(deps.metrics));
  for (const router of deps.publicRouters ?? []) routes.add(router);
  for (const { router, before } of deps.mounted ?? []) routes.add(router, before);
  if (deps.api) {
    const before = guard(deps.api, authenticate(deps.api.verifyApiKey, deps.clock, deps.api.failedCredentials));
    for (const router of deps.api.routers) routes.add(router, before);
    // A template that names no GET route is a mistake in a resource: refused at start, not ignored.
    for (const template of deps.api.findsFirst ?? []) {
      if (!routes.declares('GET', template)) throw new Error(`findsFirst names ${template}, which is no GET route of the API`);
    }
  }
  if (deps.admin) {
    const before = guard(deps.admin, deps.admin.authenticate);
    for (const router of deps.admin.routers) routes.add(router, before);
  }

  app.use(
    requestEnvelope({
      logger: deps.requestLogger ?? deps.logger,
      ...(deps.metrics ? { observe: deps.metrics.observe } : {}),
      ...(deps.draining ? { draining: deps.draining } : {}),
      ...(deps.hsts ? { strictTransportSecurity: strictTransportSecurity(deps.hsts) } : {}),
    }),
  );
  app.use(errorHandler(deps.logger, deps.clock));
  app.use(routes.routes());
  const unmatched = (deps.unmatched ?? []).map(({ under, answer }) => ({ under: (deps.basePath + under).toLowerCase(), answer: compose([...answer]) }));
  app.use(async (ctx) => {
    // Routes whose path matches but not the method make this a 405, not a 404.
    const allowed = routes.allowed(ctx.path);
    if (allowed !== null) {
      ctx.state.route = allowed.template;
      throw new HttpError(405, 'Method not allowed', `${ctx.method} is not allowed on ${ctx.path}`, {
        headers: { Allow: allowed.methods.join(', ') },
      });
    }
    const path = ctx.path.toLowerCase();
    const own = unmatched.find(({ under }) => path === under || path.startsWith(`${under}/`));
    if (own) return own.answer(ctx);
    throw new HttpError(404, 'Not found', `No route for ${ctx.method} ${ctx.path}`);
  });
  return app;
};
