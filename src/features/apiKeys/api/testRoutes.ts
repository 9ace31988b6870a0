import Router from '@koa/router';
import type { Clock } from '../../../shared/Clock.js';
import { authOf } from '../../../http/middleware/requirePermission.js';
import type { ApiResource } from '../../../http/ApiResource.js';
import { testOpenApi } from './testOpenApi.js';

/** GET /test: confirms that a key works, and what it may do. Any valid key, no permission needed. */
export const testRoutes = (clock: Clock): Router => {
  const router = new Router();
  router.get('/test', (ctx) => {
    const auth = authOf(ctx.state);
    ctx.body = {
      success: true,
      message: 'API key is valid',
      data: { companyId: auth.companyId, permissions: [...auth.permissions], timestamp: clock.now().toISOString() },
    };
  });
  return router;
};

/** `/test`: is this key valid, and what may it do. */
export const testResource: ApiResource = {
  openapi: testOpenApi,
  routes: (api) => [testRoutes(api.commands.clock)],
};
