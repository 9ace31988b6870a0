import Router from '@koa/router';
import { companyUsage } from '../../../application/usage/companyUsage.js';
import { apiKeysProjection } from '../../apiKeys/index.js';
import { companiesProjection, companyOf, PLATFORM_SCOPE } from '../../companies/index.js';
import type { ConsoleDeps } from '../../../console/ConsoleDeps.js';
import { ConsolePageError } from '../../../console/ConsolePageError.js';
import { allDocuments } from '../../../console/pages/allDocuments.js';
import { keyState } from '../../apiKeys/index.js';
import { overviewBody } from './overviewPage.js';
import { renderPage } from '../../../console/pages/render.js';
import { signedInOf } from '../../../console/session/requireSession.js';

/** GET /console: the overview. */
export const overviewRoutes = (deps: ConsoleDeps): Router => {
  const router = new Router();
  const companies = deps.readModels.collection(companiesProjection);
  const keys = deps.readModels.collection(apiKeysProjection);

  router.get('/console', async (ctx) => {
    const { companyId } = signedInOf(ctx).session;
    const now = deps.commands.clock.now();
    const [company, usage, companyKeys] = await Promise.all([
      companies.get(PLATFORM_SCOPE, companyId),
      companyUsage(deps.usage, companyId, now),
      allDocuments(keys, companyId),
    ]);
    if (!company) throw new ConsolePageError(404, 'This company is not known', 'Its records may still be on their way; reload in a moment.');
    const activeKeys = companyKeys.filter((key) => keyState(key, now) === 'active');
    renderPage(ctx, deps, {
      title: 'Overview',
      section: 'overview',
      body: overviewBody({ basePath: deps.basePath, company: companyOf(company), usage, limits: deps.rateLimits, activeKeys }),
    });
  });

  return router;
};
