import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { UnmatchedPaths } from '../http/createApp.js';
import type { ConsoleDeps } from './ConsoleDeps.js';
import { ConsolePageError } from './ConsolePageError.js';
import { CONSOLE_PATH } from './consolePath.js';
import { consoleErrors } from './consoleErrors.js';
import { assetRoutes } from './routes/assetRoutes.js';
import { securityHeaders } from './securityHeaders.js';
import { requireSession } from './session/requireSession.js';

/** A feature's pages: their routes, and whether they need a session (every page but a link's own). */
export interface ConsolePages {
  readonly routes: (deps: ConsoleDeps) => Router;
  readonly signedIn: boolean;
}

/** Routes and the middleware that runs before them, once one matched (see RouteTable). */
export interface MountedRoutes {
  readonly router: Router;
  readonly before: readonly Middleware[];
}

/**
 * The customer console, mounted beside the API under the base path: its assets,
 * and the features' pages (the registry's, in its order): a link's page and the
 * sign-in without a session; every other page behind `requireSession` (an open session, its CSRF token on every
 * change). Every response carries the console's security headers; errors are
 * pages, not JSON.
 */
export const consoleRoutes = (deps: ConsoleDeps, pages: readonly ConsolePages[]): readonly MountedRoutes[] => {
  const common: Middleware[] = [securityHeaders(deps.settings.frameAncestors), consoleErrors(deps)];
  const signedIn: Middleware[] = [...common, requireSession(deps)];
  return [
    { router: assetRoutes(), before: common },
    ...pages.map((page) => ({ router: page.routes(deps), before: page.signedIn ? signedIn : common })),
  ];
};

/**
 * A path under the console that no page has (a mistyped or outdated address): the console's own 404
 * page, with its security headers, for anyone (no session needed to learn that a page does not exist),
 * instead of the API's JSON body, which a browser would show as text.
 */
export const consoleNotFound = (deps: ConsoleDeps): UnmatchedPaths => ({
  under: CONSOLE_PATH,
  answer: [
    securityHeaders(deps.settings.frameAncestors),
    consoleErrors(deps),
    () => {
      throw new ConsolePageError(404, 'This page does not exist', 'Check the address, or go back to the console.');
    },
  ],
});
