import Router from '@koa/router';
import type { ProjectionLag } from '../../application/ProjectionRunner.js';
import type { Position } from '../../shared/Position.js';

export interface HealthDeps {
  readonly eventStoreKind: string;
  readonly readModelsKind: string;
  readonly headPosition: () => Promise<Position | null>;
  /** Absent when this process runs no projections. */
  readonly projectionLag?: () => Promise<ProjectionLag>;
}

/** GET /health (no auth): alive, which stores, how far the log and the read models are. */
export const healthRoutes = (deps: HealthDeps): Router => {
  const router = new Router();
  router.get('/health', async (ctx) => {
    const lag = deps.projectionLag ? await deps.projectionLag() : null;
    ctx.body = {
      success: true,
      data: {
        status: 'ok',
        eventStore: deps.eventStoreKind,
        readModels: deps.readModelsKind,
        lastPosition: lag ? lag.head : await deps.headPosition(),
        projections: lag ? { position: lag.position, caughtUp: lag.caughtUp, lagMs: lag.lagMs } : null,
      },
    };
  });
  return router;
};
