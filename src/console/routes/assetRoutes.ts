import Router from '@koa/router';
import { CONSOLE_ASSETS, CONSOLE_ASSETS_VERSION } from '../assets/consoleAssets.js';
import { ConsolePageError } from '../ConsolePageError.js';

/**
 * GET /console/assets/:name: the stylesheet and the script, from a fixed list.
 * Pages ask for them with `?v=<version>`, which changes with their content, so
 * they may be cached for long.
 */
export const assetRoutes = (): Router => {
  const router = new Router();
  router.get('/console/assets/:name', (ctx) => {
    const asset = Object.hasOwn(CONSOLE_ASSETS, ctx.params.name!) ? CONSOLE_ASSETS[ctx.params.name!] : undefined;
    if (!asset) throw new ConsolePageError(404, 'No such file', 'The console serves its own stylesheet and script only.');
    ctx.type = asset.type;
    ctx.set('ETag', `"${CONSOLE_ASSETS_VERSION}"`);
    ctx.set('Cache-Control', ctx.query.v === CONSOLE_ASSETS_VERSION ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (ctx.get('If-None-Match') === `"${CONSOLE_ASSETS_VERSION}"`) {
      ctx.status = 304;
      return;
    }
    ctx.body = asset.body;
  });
  return router;
};
