import type { Context, Middleware } from 'koa';
import { resumeConsoleSession, type ConsoleSession } from '../../application/console/consoleSession.js';
import { isCsrfToken } from '../../shared/consoleTokens.js';
import { companiesProjection, companyOf, PLATFORM_SCOPE } from '../../../projections/companies/companiesProjection.js';
import type { ConsoleDeps } from '../ConsoleDeps.js';
import { ConsolePageError } from '../ConsolePageError.js';
import { clearSessionCookie, framedByOthers, readSessionCookie } from '../sessionCookie.js';
import { readForm } from './formBody.js';

/** The signed-in request: its session, and the company's name for the page's header. */
export interface SignedIn {
  readonly session: ConsoleSession;
  readonly companyName: string;
}

export const signedInOf = (ctx: Context): SignedIn => {
  const signedIn = ctx.state.console as SignedIn | undefined;
  if (!signedIn) throw new Error('console route reached without a session');
  return signedIn;
};

const SAFE = new Set(['GET', 'HEAD']);

/**
 * Every page of a session: the cookie must name an open session (else a 401
 * page that says so, and the cookie is cleared), which this request keeps alive.
 * A change (any method but GET and HEAD) must also carry the session's CSRF token
 * in its form (`_csrf`), else a 403 page and nothing is done; a change from
 * another origin (its `Origin` or `Sec-Fetch-Site` says so) is refused the same way.
 */
export const requireSession = (deps: ConsoleDeps): Middleware => {
  const companies = deps.readModels.collection(companiesProjection);
  const framed = framedByOthers(deps.settings.frameAncestors);
  return async (ctx, next) => {
    const session = await resumeConsoleSession({ sessions: deps.sessions, clock: deps.commands.clock }, readSessionCookie(ctx), deps.settings.session);
    if (!session) {
      clearSessionCookie(ctx, deps.basePath, framed);
      throw new ConsolePageError(
        401,
        'You are signed out',
        'This console session has ended (signed out, unused for a while, or past its time), or none was opened in this browser. ' +
          'Open the console again from your platform’s dashboard: it hands you a new link.',
      );
    }
    if (!SAFE.has(ctx.method)) await requireCsrfToken(ctx, session);
    const company = await companies.get(PLATFORM_SCOPE, session.companyId);
    ctx.state.console = { session, companyName: company ? companyOf(company).name : session.companyId } satisfies SignedIn;
    await next();
    ctx.set('Cache-Control', 'no-store');
  };
};

const refused = (): ConsolePageError =>
  new ConsolePageError(
    403,
    'This change was refused',
    'It did not come from a page of this console session (its security token is missing or wrong), so nothing was changed. ' +
      'Reload the page and try again.',
  );

const requireCsrfToken = async (ctx: Context, session: ConsoleSession): Promise<void> => {
  if (crossOrigin(ctx)) throw refused();
  const form = await readForm(ctx);
  if (!isCsrfToken(session.secret, form.get('_csrf'))) throw refused();
};

/**
 * True when the browser says the request comes from another site or origin:
 * `Sec-Fetch-Site` other than same-origin, or an `Origin` of another host (its
 * scheme is not compared: a proxy that terminates TLS without TRUST_PROXY would
 * make every change look cross-origin).
 */
export const crossOrigin = (ctx: Context): boolean => {
  const site = ctx.get('Sec-Fetch-Site');
  if (site !== '' && site !== 'same-origin' && site !== 'none') return true;
  const origin = ctx.get('Origin');
  if (origin === '') return false;
  try {
    return new URL(origin).host !== ctx.host;
  } catch {
    // `null` (an opaque origin: a sandboxed frame, a data: page) or garbage.
    return true;
  }
};
