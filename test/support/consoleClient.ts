import * as E from 'fp-ts/lib/Either.js';
import { issueConsoleLink, type IssuedConsoleLink } from '../../src/features/console/application/issueConsoleLink.js';
import type { EventStore } from '../../src/application/ports/EventStore.js';
import { systemClock } from '../../src/shared/Clock.js';
import { newId } from '../../src/shared/ids.js';

/** A console response: status, headers and the page's text. */
export interface ConsoleResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** Issues a console link for a company, as the CLI and the admin API do. */
export const issueLink = async (eventStore: EventStore, companyId: string, validForMs?: number): Promise<IssuedConsoleLink> => {
  const issued = await issueConsoleLink(
    { eventStore, newId, clock: systemClock },
    { companyId, metadata: { source: 'cli', correlationId: newId() }, ...(validForMs !== undefined ? { validForMs } : {}) },
  );
  if (E.isLeft(issued)) throw new Error(JSON.stringify(issued.left));
  return issued.right;
};

const respond = async (response: Response): Promise<ConsoleResponse> => ({ status: response.status, headers: response.headers, text: await response.text() });

/** GET of a console path (`/console/…`, under `baseUrl`), with a cookie when given; redirects are not followed. */
export const consoleGet = async (baseUrl: string, path: string, cookie?: string, headers: Record<string, string> = {}): Promise<ConsoleResponse> =>
  respond(await fetch(`${baseUrl}${path}`, { redirect: 'manual', headers: { ...(cookie ? { Cookie: cookie } : {}), ...headers } }));

/** POST of a form to a console path, as the console's own pages send it. */
export const consolePost = async (
  baseUrl: string,
  path: string,
  fields: Record<string, string | readonly string[]>,
  cookie?: string,
  headers: Record<string, string> = {},
): Promise<ConsoleResponse> => {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const one of typeof value === 'string' ? [value] : value) form.append(name, one);
  return respond(
    await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(cookie ? { Cookie: cookie } : {}), ...headers },
      body: form.toString(),
    }),
  );
};

/** The `name=value` of the console's session cookie a response set, or null. */
export const sessionCookieOf = (response: ConsoleResponse): string | null => {
  const set = response.headers.getSetCookie().find((line) => line.startsWith('chronicle_console=') && !line.includes('Max-Age=0'));
  return set ? set.split(';')[0]! : null;
};

/** The CSRF token a page's forms carry. */
export const csrfOf = (page: ConsoleResponse): string => {
  const match = /name="_csrf" value="([^"]+)"/.exec(page.text);
  if (!match) throw new Error(`no CSRF token on the page (status ${page.status})`);
  return match[1]!;
};

/** A signed-in console: the session's cookie and CSRF token, and requests with them. */
export interface ConsoleSession {
  readonly cookie: string;
  readonly csrf: string;
  get(path: string): Promise<ConsoleResponse>;
  /** A change with the session's CSRF token (unless `_csrf` is given, or `withoutCsrf`). */
  post(path: string, fields?: Record<string, string | readonly string[]>, options?: { readonly withoutCsrf?: boolean; readonly headers?: Record<string, string> }): Promise<ConsoleResponse>;
}

/** Opens a console session for a company the way a browser does: a link, its page, its form. */
export const openConsole = async (baseUrl: string, eventStore: EventStore, companyId: string): Promise<ConsoleSession> => {
  const link = await issueLink(eventStore, companyId);
  const signedIn = await consolePost(baseUrl, '/console/login', { token: link.token });
  const cookie = sessionCookieOf(signedIn);
  if (signedIn.status !== 303 || !cookie) throw new Error(`sign-in failed: ${signedIn.status} ${signedIn.text.slice(0, 300)}`);
  const overview = await consoleGet(baseUrl, '/console', cookie);
  const csrf = csrfOf(overview);
  return {
    cookie,
    csrf,
    get: (path) => consoleGet(baseUrl, path, cookie),
    post: (path, fields = {}, options = {}) =>
      consolePost(baseUrl, path, options.withoutCsrf ? fields : { _csrf: csrf, ...fields }, cookie, options.headers ?? {}),
  };
};
