import type { Context } from 'koa';
import type { EventMetadata } from '../../shared/EventMetadata.js';
import { csrfTokenOf } from '../../shared/consoleTokens.js';
import type { Position } from '../../shared/Position.js';
import type { ConsoleDeps } from '../ConsoleDeps.js';
import type { Html } from '../html/html.js';
import { consoleUrl, layout, type ConsoleSection } from '../html/layout.js';
import { signedInOf } from '../session/requireSession.js';

/** What a signed-in page shows: its title, its section of the navigation, its body, and a notice. */
export interface PageContent {
  readonly title: string;
  readonly section?: ConsoleSection;
  readonly body: Html;
  readonly notice?: string | null;
  readonly status?: number;
  /** What the header's search box holds (the search page's query). */
  readonly search?: string;
}

/** Answers a signed-in page (never cached: it holds the company's data and the session's CSRF token). */
export const renderPage = (ctx: Context, deps: Pick<ConsoleDeps, 'basePath'>, content: PageContent): void => {
  const { session, companyName } = signedInOf(ctx);
  ctx.status = content.status ?? 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = layout({
    basePath: deps.basePath,
    title: content.title,
    body: content.body,
    notice: content.notice ?? null,
    ...(content.section ? { section: content.section } : {}),
    ...(content.search !== undefined ? { search: content.search } : {}),
    session: { companyName, csrf: csrfTokenOf(session.secret), expiresAt: session.expiresAt },
  }).text;
};

/** The CSRF token of the request's session, for the forms of a page. */
export const csrfOf = (ctx: Context): string => csrfTokenOf(signedInOf(ctx).session.secret);

/** A 303 to a console page after a change (the browser then GETs it: a reload does not send the change again). */
export const redirectTo = (ctx: Context, deps: Pick<ConsoleDeps, 'basePath'>, path: string): void => {
  ctx.status = 303;
  ctx.redirect(consoleUrl(deps.basePath, path));
};

/** Who made a change from the console: the session, the request, the company. */
export const consoleMetadata = (ctx: Context): EventMetadata => {
  const { session } = signedInOf(ctx);
  return { source: 'console', correlationId: String(ctx.state.requestId), companyId: session.companyId, sessionId: session.sessionId };
};

/** Waits (bounded) until the read models have applied a change, so the next page shows it. */
export const afterChange = async (deps: Pick<ConsoleDeps, 'readYourWrites'>, position: Position | null): Promise<void> => {
  if (position !== null) await deps.readYourWrites.progress.waitFor(position, deps.readYourWrites.readYourWritesTimeoutMs);
};
