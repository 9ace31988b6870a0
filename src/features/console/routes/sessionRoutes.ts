import Router from '@koa/router';
import { endConsoleSession } from '../../../application/consoleSessions/consoleSession.js';
import type { ConsoleDeps } from '../../../console/ConsoleDeps.js';
import { redirectTo } from '../../../console/pages/render.js';
import { clearSessionCookie, framedByOthers, readSessionCookie } from '../../../console/sessionCookie.js';

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
