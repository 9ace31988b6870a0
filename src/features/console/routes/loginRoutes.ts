import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import { endConsoleSession, resumeConsoleSession } from '../../../application/consoleSessions/consoleSession.js';
import { checkConsoleLink, redeemConsoleLink, type ConsoleLinkError } from '../application/redeemConsoleLink.js';
import type { ConsoleDeps } from '../../../console/ConsoleDeps.js';
import { ConsolePageError } from '../../../console/ConsolePageError.js';
import { html, type Html } from '../../../console/html/html.js';
import { consoleUrl, layout } from '../../../console/html/layout.js';
import { field, readForm } from '../../../console/session/formBody.js';
import { crossOrigin, failedCredential } from '../../../console/session/requireSession.js';
import { clearSessionCookie, framedByOthers, readSessionCookie, setSessionCookie } from '../../../console/sessionCookie.js';

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

/** What the link's page says of the session this browser already holds, if any. */
const currentSessionNote = (basePath: string, opens: string, current: string | null, sameCompany: boolean): Html | null => {
  if (current === null) return null;
  if (sameCompany) {
    return html`<p class="notice" data-other-session>This browser is already signed in to ${current}’s console. <a href="${consoleUrl(basePath)}">Go to it</a>, or open the link to start a new session.</p>`;
  }
  return html`<p class="notice" data-other-session>This browser is signed in to <strong>${current}</strong>’s console. Opening this link signs it out of that console and into ${opens}’s. If you did not ask for ${opens}’s console, close this page.</p>`;
};

/**
 * The way in: GET /console/login?token=… shows the company the link opens (and
 * the session of this browser it would replace) and a button that uses it, never
 * sent by itself: a page of another site that sends a browser to an attacker's
 * link then opens nothing (login CSRF), and link previewers and mail scanners,
 * which only GET, never use a link up. POST /console/login uses it (from this
 * origin only): the browser's previous session ends, the new session's cookie is
 * set and the browser goes to the overview. GET /console/signed-out is the page
 * after a logout.
 */
export const loginRoutes = (deps: ConsoleDeps): Router => {
  const router = new Router();
  const framed = framedByOthers(deps.settings.frameAncestors);
  const { companyName } = deps;

  router.get('/console/login', async (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const checked = await checkConsoleLink(deps.commands.eventStore, token, deps.commands.clock.now());
    if (E.isLeft(checked)) throw failedCredential(deps, ctx, 'console_link', linkRefused(checked.left));
    const opens = await companyName(checked.right.companyId);
    const current = await resumeConsoleSession({ sessions: deps.sessions, clock: deps.commands.clock }, readSessionCookie(ctx), deps.settings.session);
    const note = currentSessionNote(deps.basePath, opens, current && (await companyName(current.companyId)), current?.companyId === checked.right.companyId);
    const body = html`<section class="panel" aria-labelledby="open-title">
  <h1 id="open-title">Open ${opens}’s console</h1>
  <p>This link signs you in to the console of <strong>${opens}</strong> (${checked.right.companyId}), once.</p>
  ${note}
  <form method="post" action="${consoleUrl(deps.basePath, '/login')}">
    <input type="hidden" name="token" value="${token}">
    <button type="submit">Open ${opens}’s console</button>
  </form>
</section>`;
    htmlPage(ctx, 200, layout({ basePath: deps.basePath, title: 'Open the console', body }).text);
  });

  router.post('/console/login', async (ctx) => {
    if (crossOrigin(ctx, deps.settings.publicOrigin)) throw new ConsolePageError(403, 'This link was not opened here', 'Open the link itself in your browser.');
    const form = await readForm(ctx);
    const opened = await redeemConsoleLink(
      { ...deps.commands, sessions: deps.sessions },
      { token: field(form, 'token'), settings: deps.settings.session, correlationId: String(ctx.state.requestId) },
    );
    if (E.isLeft(opened)) throw failedCredential(deps, ctx, 'console_link', linkRefused(opened.left));
    // The session this browser held before (of any company) ends: its cookie is replaced below.
    await endConsoleSession(deps.sessions, readSessionCookie(ctx));
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
