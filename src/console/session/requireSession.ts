import type { Context, Middleware } from 'koa';
import { endConsoleSession, resumeConsoleSession, type ConsoleSession } from '../../application/consoleSessions/consoleSession.js';
import { isCsrfToken } from '../../shared/consoleTokens.js';
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
 * A refused link or session cookie, counted for the client's address: `page`,
 * or a 429 page with `Retry-After` once the address is past the limit of failed
 * credentials (which the API's keys and admin tokens count into too).
 */
export const failedCredential = (
  deps: Pick<ConsoleDeps, 'failedCredentials'>,
  ctx: Context,
  kind: 'console_link' | 'console_session',
  page: ConsolePageError,
): ConsolePageError => {
  const failures = deps.failedCredentials;
  const counted = failures?.fail(ctx.ip, kind);
  if (!failures || !counted?.throttled) return page;
  return new ConsolePageError(
    429,
    'Too many failed attempts',
    `This address presented more than ${failures.limit} links, keys or sessions that were not valid in ${failures.windowSeconds} seconds. ` +
      `Wait ${counted.retryAfterSeconds} seconds, then open the console again from your platform’s dashboard.`,
    { 'Retry-After': String(counted.retryAfterSeconds) },
  );
};

/**
 * Every page of a session. A change (any method but GET and HEAD) from another
 * site or origin (its `Sec-Fetch-Site` or `Origin` says so) is refused first, with
 * a 403 page: no session is looked at and the browser's cookie is left as it is,
 * so a page of another site can neither change anything nor sign the browser out.
 * Then the cookie must name an open session of a company that is not suspended,
 * which this request keeps alive; else
 * a 401 page that says so (a page clears the dead cookie; a change does not
 * touch it). A change must also carry the session's CSRF token in its form
 * (`_csrf`), else a 403 page and nothing is done.
 */
export const requireSession = (deps: ConsoleDeps): Middleware => {
  const framed = framedByOthers(deps.settings.frameAncestors);
  return async (ctx, next) => {
    const change = !SAFE.has(ctx.method);
    if (change && crossOrigin(ctx, deps.settings.publicOrigin)) throw refused();
    const cookie = readSessionCookie(ctx);
    let session = await resumeConsoleSession({ sessions: deps.sessions, clock: deps.commands.clock }, cookie, deps.settings.session);
    // The platform suspended the company: the session ends here (the suspension ended it in the store too, unless
    // it was opened meanwhile), and the browser is signed out as for any ended session.
    if (session && (await deps.companySuspended(session.companyId))) {
      await endConsoleSession(deps.sessions, cookie);
      session = null;
    }
    if (!session) {
      if (!change) clearSessionCookie(ctx, deps.basePath, framed);
      const signedOut = new ConsolePageError(
        401,
        'You are signed out',
        'This console session has ended (signed out, unused for a while, or past its time), or none was opened in this browser. ' +
          'Open the console again from your platform’s dashboard: it hands you a new link.',
        {},
        // Without a session the console is this page again: no link back to it.
        false,
      );
      // A cookie that names no open session is a failed credential; none at all is a browser that never signed in.
      throw cookie === null ? signedOut : failedCredential(deps, ctx, 'console_session', signedOut);
    }
    if (change) await requireCsrfToken(ctx, session);
    ctx.state.console = { session, companyName: await deps.companyName(session.companyId) } satisfies SignedIn;
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
  const form = await readForm(ctx);
  if (!isCsrfToken(session.secret, form.get('_csrf'))) throw refused();
};

/**
 * True when the browser says the request comes from another site or origin:
 * `Sec-Fetch-Site` other than same-origin, or an `Origin` other than the
 * console's. The console's origin is `publicOrigin` (CONSOLE_PUBLIC_URL's: scheme,
 * host and port) when it is set; else only the Origin's host is compared with
 * the request's (its scheme is not: a proxy that terminates TLS without
 * TRUST_PROXY would make every change look cross-origin), which behind a proxy
 * holds only when the proxy passes the browser's Host on.
 */
export const crossOrigin = (ctx: Context, publicOrigin: string | null = null): boolean => {
  const site = ctx.get('Sec-Fetch-Site');
  if (site !== '' && site !== 'same-origin' && site !== 'none') return true;
  const origin = ctx.get('Origin');
  if (origin === '') return false;
  try {
    const url = new URL(origin);
    return publicOrigin !== null ? url.origin !== publicOrigin : url.host !== ctx.host;
  } catch {
    // `null` (an opaque origin: a sandboxed frame, a data: page) or garbage.
    return true;
  }
};
