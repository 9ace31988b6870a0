import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import { checkConsoleLink, redeemConsoleLink } from '../../application/console/redeemConsoleLink.js';
import type { ConsoleLinkError } from '../../domain/consoleLinks/consoleLinkErrors.js';
import type { ConsoleDeps } from '../ConsoleDeps.js';
import { ConsolePageError } from '../ConsolePageError.js';
import { html } from '../html/html.js';
import { consoleUrl, layout } from '../html/layout.js';
import { field, readForm } from '../session/formBody.js';
import { crossOrigin } from '../session/requireSession.js';
import { clearSessionCookie, framedByOthers, setSessionCookie } from '../sessionCookie.js';

const NEW_LINK = 'Console links open the console once, within 15 minutes. Open the console again from your platform’s dashboard: it hands you a new link.';

/** The clear page of a link that opens nothing, and why. */
export const linkRefused = (error: ConsoleLinkError): ConsolePageError => {
  switch (error.kind) {
    case 'ConsoleLinkUsed':
      return new ConsolePageError(410, 'This link was already used', `It opened a console session at ${error.redeemedAt.slice(0, 19).replace('T', ' ')} UTC. ${NEW_LINK}`);
    case 'ConsoleLinkExpired':
      return new ConsolePageError(410, 'This link has expired', NEW_LINK);
    case 'ConsoleLinkNotFound':
    case 'ConsoleLinkAlreadyIssued':
    case 'ConsoleLinkTooLong':
      return new ConsolePageError(404, 'This link is not valid', `Check that it was copied whole. ${NEW_LINK}`);
  }
};

const htmlPage = (ctx: Context, status: number, text: string): void => {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = text;
};

/**
 * The way in: GET /console/login?token=… shows what the link would do and a
 * form that uses it (sent at once by the script; a button without it), so link
 * previewers and mail scanners, which only GET, never use a link up.
 * POST /console/login uses it: the session cookie is set and the browser goes to
 * the overview. GET /console/signed-out is the page after a logout.
 */
export const loginRoutes = (deps: ConsoleDeps): Router => {
  const router = new Router();
  const framed = framedByOthers(deps.settings.frameAncestors);

  router.get('/console/login', async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const checked = await checkConsoleLink(deps.commands.eventStore, token, deps.commands.clock.now());
    if (E.isLeft(checked)) throw linkRefused(checked.left);
    const body = html`<section class="panel" aria-labelledby="open-title">
  <h1 id="open-title">Opening your console…</h1>
  <form method="post" action="${consoleUrl(deps.basePath, '/login')}" data-autosubmit>
    <input type="hidden" name="token" value="${token}">
    <p>This link opens the console once.</p>
    <button type="submit">Open the console</button>
  </form>
</section>`;
    htmlPage(ctx, 200, layout({ basePath: deps.basePath, title: 'Open the console', body }).text);
  });

  router.post('/console/login', async (ctx) => {
    if (crossOrigin(ctx)) throw new ConsolePageError(403, 'This link was not opened here', 'Open the link itself in your browser.');
    const form = await readForm(ctx);
    const opened = await redeemConsoleLink(
      { ...deps.commands, sessions: deps.sessions },
      { token: field(form, 'token'), settings: deps.settings.session, correlationId: String(ctx.state.requestId) },
    );
    if (E.isLeft(opened)) throw linkRefused(opened.left);
    setSessionCookie(ctx, deps.basePath, framed, opened.right.cookie, opened.right.expiresAt);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 303;
    ctx.redirect(consoleUrl(deps.basePath));
  });

  router.get('/console/signed-out', (ctx) => {
    clearSessionCookie(ctx, deps.basePath, framed);
    const body = html`<section class="panel" aria-labelledby="out-title">
  <h1 id="out-title">You are signed out</h1>
  <p>This browser holds no console session any more. To come back, open the console from your platform’s dashboard.</p>
</section>`;
    htmlPage(ctx, 200, layout({ basePath: deps.basePath, title: 'Signed out', body }).text);
  });

  return router;
};
