import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from '../application/ports/Logger.js';
import type { Clock } from '../shared/Clock.js';
import { HttpError } from './HttpError.js';
import { errorHandler } from './middleware/errorHandler.js';
import { requestId } from './middleware/requestId.js';
import { healthRoutes, type HealthDeps } from './routes/health.js';

export interface AppDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly basePath: string;
  readonly trustProxy: boolean;
  readonly health: HealthDeps;
  /** Resource routes, mounted under the base path after /health. */
  readonly routers?: readonly Router[];
}

/** The Koa application: middleware in order, then the routes under the base path. */
export const createApp = (deps: AppDeps): Koa => {
  const app = new Koa({ proxy: deps.trustProxy });
  // Errors are answered by errorHandler; Koa's default printer would only duplicate them.
  app.silent = true;

  const root = new Router({ prefix: deps.basePath || undefined });
  root.use(healthRoutes(deps.health).routes());
  for (const router of deps.routers ?? []) root.use(router.routes());

  app.use(requestId());
  app.use(errorHandler(deps.logger, deps.clock));
  app.use(root.routes());
  app.use(async (ctx) => {
    // Routes whose path matches but not the method make this a 405, not a 404.
    const allowed = [...new Set(root.match(ctx.path, ctx.method).path.flatMap((layer) => layer.methods))];
    if (allowed.length > 0) {
      throw new HttpError(405, 'Method not allowed', `${ctx.method} is not allowed on ${ctx.path}`, {
        headers: { Allow: allowed.join(', ') },
      });
    }
    throw new HttpError(404, 'Not found', `No route for ${ctx.method} ${ctx.path}`);
  });
  return app;
};
