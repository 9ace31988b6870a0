import Router from '@koa/router';
import { endConsoleSession } from '../../features/console/application/consoleSession.js';
import type { ConsoleDeps } from '../ConsoleDeps.js';
import { redirectTo } from '../pages/render.js';
import { clearSessionCookie, framedByOthers, readSessionCookie } from '../sessionCookie.js';

/** POST /console/logout: the session ends everywhere (its record is deleted), the cookie is cleared. */
export const sessionRoutes = (deps: ConsoleDeps): Router => {
  const router = new Router();
  router.post('/console/logout', async (ctx) => {
    await endConsoleSession(deps.sessions, readSessionCookie(ctx));
    clearSessionCookie(ctx, deps.basePath, framedByOthers(deps.settings.frameAncestors));
    redirectTo(ctx, deps, '/signed-out');
  });
  return router;
};
