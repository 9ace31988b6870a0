import Router from '@koa/router';
import type { ProjectionLag } from '../../application/subscriptions/ProjectionRunner.js';
import type { Position } from '../../shared/Position.js';
import { describeCheck, type Readiness } from '../../ops/readiness.js';
import type { SubscriptionStatusSnapshot } from '../../application/subscriptions/SubscriptionStatus.js';
import { HttpError } from '../HttpError.js';
import { withTimeout } from '../../ops/withTimeout.js';

export interface HealthDeps {
  readonly eventStoreKind: string;
  readonly readModelsKind: string;
  readonly headPosition: () => Promise<Position | null>;
  /** Absent when this process runs no projections. */
  readonly projectionLag?: () => Promise<ProjectionLag>;
  /** The subscriptions this process runs, and what each waits for (answered as they are, without reading a store). */
  readonly subscriptions?: () => Readonly<Record<string, SubscriptionStatusSnapshot>>;
}

/** How long /health waits for the stores' figures before answering without them. */
export const HEALTH_READ_TIMEOUT_MS = 1000;

/**
 * GET /health (no auth): the process is alive (liveness), which stores it uses,
 * and how far the log and the read models are. A liveness probe must not fail, or
 * hang, because a store is down (restarting the process would not help), so the
 * figures are read within HEALTH_READ_TIMEOUT_MS and left null when they cannot be;
 * whether the process can serve is GET /ready's question.
 */
export const healthRoutes = (deps: HealthDeps): Router => {
  const router = new Router();
  const read = async (): Promise<{ lastPosition: Position | null; lag: ProjectionLag | null }> => {
    if (deps.projectionLag) {
      const lag = await deps.projectionLag();
      return { lastPosition: lag.head, lag };
    }
    return { lastPosition: await deps.headPosition(), lag: null };
  };
  router.get('/health', async (ctx) => {
    const { lastPosition, lag } = await withTimeout(read(), HEALTH_READ_TIMEOUT_MS).catch(() => ({ lastPosition: null, lag: null }));
    ctx.body = {
      success: true,
      data: {
        status: 'ok',
        eventStore: deps.eventStoreKind,
        readModels: deps.readModelsKind,
        lastPosition,
        projections: lag ? { position: lag.position, caughtUp: lag.caughtUp, lagMs: lag.lagMs } : null,
        ...(deps.subscriptions ? { subscriptions: deps.subscriptions() } : {}),
      },
    };
  });
  return router;
};

/**
 * GET /ready (no auth): 200 when this process can serve (its stores answer, and
 * the read models it serves are close enough to the log); else 503 in the spec's
 * error shape with every check in `details.checks`, for load balancers and
 * orchestrators to route around it.
 */
export const readinessRoutes = (check: () => Promise<Readiness>): Router => {
  const router = new Router();
  router.get('/ready', async (ctx) => {
    const { ready, checks } = await check();
    if (!ready) {
      const failing = Object.entries(checks)
        .filter(([name, result]) => result.status !== 'ok' && name !== 'readReplica')
        .map(([name, result]) => describeCheck(name, result));
      throw new HttpError(503, 'Service unavailable', `Not ready: ${failing.join(', ')}.`, { details: { checks } });
    }
    ctx.body = { success: true, data: { status: 'ready', checks } };
  });
  return router;
};
