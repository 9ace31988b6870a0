import Router from '@koa/router';
import { companyUsage } from '../../../application/usage/companyUsage.js';
import { apiKeyQueriesOf } from '../../apiKeys/index.js';
import { companyProfileReaderOf } from '../../companies/index.js';
import type { ConsoleDeps } from '../../../console/ConsoleDeps.js';
import { ConsolePageError } from '../../../console/ConsolePageError.js';
import { overviewBody, type OverviewView } from './overviewPage.js';
import { renderPage } from '../../../console/pages/render.js';
import { signedInOf } from '../../../console/session/requireSession.js';

/** GET /console: the overview, from the companies' and the API keys' queries and the usage counters. */
export const overviewRoutes = (deps: ConsoleDeps): Router => {
  const router = new Router();
  const companyProfile = companyProfileReaderOf(deps.readModels);
  const keys = apiKeyQueriesOf(deps.readModels);

  router.get('/console', async (ctx) => {
    const { companyId } = signedInOf(ctx).session;
    const now = deps.commands.clock.now();
    const [company, usage, activeKeys] = await Promise.all([
      companyProfile(companyId),
      companyUsage(deps.usage, companyId, now),
      keys.activeKeysOf(companyId, now),
    ]);
    if (!company) throw new ConsolePageError(404, 'This company is not known', 'Its records may still be on their way; reload in a moment.');
    const view: OverviewView = { basePath: deps.basePath, company, usage, limits: deps.rateLimits, activeKeys };
    renderPage(ctx, deps, { title: 'Overview', section: 'overview', body: overviewBody(view) });
  });

  return router;
};
