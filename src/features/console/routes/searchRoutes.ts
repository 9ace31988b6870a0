import Router from '@koa/router';
import { contactSearchOf, contactTimeline } from '../../contacts/index.js';
import { dealSearchOf, dealTimeline } from '../../deals/index.js';
import type { ConsoleDeps } from '../../../console/ConsoleDeps.js';
import { consoleUrl, SEARCH_MAX_LENGTH } from '../../../console/html/layout.js';
import { renderPage } from '../../../console/pages/render.js';
import { signedInOf } from '../../../console/session/requireSession.js';
import { searchBody, type SearchView } from './searchPage.js';

/** Matches shown of each kind of record (the newest; the page says how many there are in all). */
export const SEARCH_RESULTS_SHOWN = 25;

/**
 * GET /console/search?q=…: the header's search. The signed-in company's contacts
 * (by name, e-mail or phone number, as `GET /contacts?search=` matches them) and
 * deals (by title, or by their contact's name, e-mail or phone number), each
 * linked to its history. Only the session's company is searched; deleted and
 * erased records are in no read model searched. A blank search asks for one, a
 * search past SEARCH_MAX_LENGTH characters says so (422).
 */
export const searchRoutes = (deps: ConsoleDeps): Router => {
  const router = new Router();
  const contacts = contactSearchOf(deps.readModels);
  const deals = dealSearchOf(deps.readModels);

  router.get('/console/search', async (ctx) => {
    const { companyId } = signedInOf(ctx).session;
    // A repeated q (a hand-made URL) is read as its first value.
    const asked = Array.isArray(ctx.query.q) ? (ctx.query.q[0] ?? '') : (ctx.query.q ?? '');
    const text = asked.trim();
    const page = (view: SearchView, status = 200) =>
      renderPage(ctx, deps, { title: text === '' ? 'Search' : `Search: ${text.slice(0, 60)}`, body: searchBody(view), search: text, status });
    if (text === '') return page({ kind: 'empty' });
    if ([...text].length > SEARCH_MAX_LENGTH) return page({ kind: 'too-long', length: [...text].length }, 422);
    const query = { companyId, text, limit: SEARCH_RESULTS_SHOWN };
    const [contactsFound, dealsFound] = await Promise.all([contacts.contactsMatching(query), deals.dealsMatching(query)]);
    return page({
      kind: 'found',
      text,
      contacts: contactsFound,
      deals: dealsFound,
      contactUrl: (id) => consoleUrl(deps.basePath, `/${contactTimeline.path}/${encodeURIComponent(id)}`),
      dealUrl: (id) => consoleUrl(deps.basePath, `/${dealTimeline.path}/${encodeURIComponent(id)}`),
    });
  });

  return router;
};
