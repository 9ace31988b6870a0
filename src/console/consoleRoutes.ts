import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ConsoleDeps } from './ConsoleDeps.js';
import { consoleErrors } from './consoleErrors.js';
import { activityRoutes } from '../features/webhookEvents/console/activityRoutes.js';
import { assetRoutes } from './routes/assetRoutes.js';
import { keyRoutes } from '../features/apiKeys/console/keyRoutes.js';
import { loginRoutes } from '../features/console/routes/loginRoutes.js';
import { overviewRoutes } from '../features/companies/console/overviewRoutes.js';
import { sessionRoutes } from '../features/console/routes/sessionRoutes.js';
import { webhookRoutes } from '../features/webhooks/console/webhookRoutes.js';
import { securityHeaders } from './securityHeaders.js';
import { requireSession } from './session/requireSession.js';

/** Routes and the middleware that runs before them, once one matched (see RouteTable). */
export interface MountedRoutes {
  readonly router: Router;
  readonly before: readonly Middleware[];
}

/**
 * The customer console, mounted beside the API under the base path: its assets
 * and its way in (a link's page, the sign-in) without a session; every other
 * page behind `requireSession` (an open session, its CSRF token on every
 * change). Every response carries the console's security headers; errors are
 * pages, not JSON.
 */
export const consoleRoutes = (deps: ConsoleDeps): readonly MountedRoutes[] => {
  const common: Middleware[] = [securityHeaders(deps.settings.frameAncestors), consoleErrors(deps)];
  const signedIn: Middleware[] = [...common, requireSession(deps)];
  return [
    { router: assetRoutes(), before: common },
    { router: loginRoutes(deps), before: common },
    ...[sessionRoutes, overviewRoutes, keyRoutes, webhookRoutes, activityRoutes].map((routes) => ({ router: routes(deps), before: signedIn })),
  ];
};
