import type { Context } from 'koa';
import { CONSOLE_PATH } from './consolePath.js';

/** The session cookie's name. */
export const SESSION_COOKIE = 'chronicle_console';

/**
 * How the cookie is sent: HttpOnly (no script reads it), for the console's paths
 * only, Secure when the request came over TLS (directly, or as TRUST_PROXY's
 * X-Forwarded-Proto says). SameSite=Lax, so a page of another site can never
 * make a change with it (a cross-site POST carries no cookie), while a link
 * followed from the platform's dashboard still opens the console; when the
 * platform may frame the console (another origin in `frameAncestors`) and the
 * request is secure, SameSite=None and Partitioned instead, so the cookie is
 * sent inside the platform's frame (the CSRF token guards every change then).
 */
const attributes = (ctx: Context, basePath: string, framed: boolean): string => {
  const secure = ctx.secure;
  const sameSite = framed && secure ? 'SameSite=None; Partitioned' : 'SameSite=Lax';
  return `Path=${basePath}${CONSOLE_PATH}; HttpOnly; ${sameSite}${secure ? '; Secure' : ''}`;
};

/** Whether origins other than the console's own may frame it. */
export const framedByOthers = (frameAncestors: readonly string[]): boolean =>
  frameAncestors.some((source) => source !== "'none'" && source !== "'self'");

/** The cookie's value as the browser sent it, or null. */
export const readSessionCookie = (ctx: Context): string | null => {
  const header = ctx.get('Cookie');
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) return pair.slice(eq + 1).trim();
  }
  return null;
};

/** Sets the session cookie until the session's absolute end (the server also ends it when idle, or at logout). */
export const setSessionCookie = (ctx: Context, basePath: string, framed: boolean, value: string, expiresAt: Date): void => {
  ctx.append('Set-Cookie', `${SESSION_COOKIE}=${value}; ${attributes(ctx, basePath, framed)}; Expires=${expiresAt.toUTCString()}`);
};

/** Tells the browser to forget the cookie. */
export const clearSessionCookie = (ctx: Context, basePath: string, framed: boolean): void => {
  ctx.append('Set-Cookie', `${SESSION_COOKIE}=; ${attributes(ctx, basePath, framed)}; Max-Age=0`);
};
