import type { Middleware } from 'koa';
import type { Logger } from '../application/ports/Logger.js';
import { temporaryFailureOf } from '../http/errorTable.js';
import { ConsolePageError } from './ConsolePageError.js';
import { html } from './html/html.js';
import { consoleUrl, layout } from './html/layout.js';

/** Errors Koa itself raises for a client (a malformed URL), with their 4xx status. */
const clientStatusOf = (error: unknown): number | null => {
  const { status, expose } = (typeof error === 'object' && error !== null ? error : {}) as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true ? status : null;
};

/** The page of a refused or failed request. */
const pageOf = (error: unknown, requestId: string): ConsolePageError | null => {
  if (error instanceof ConsolePageError) return error;
  const temporary = temporaryFailureOf(error);
  if (temporary) {
    return new ConsolePageError(503, 'Try again in a moment', `${temporary.detail ?? 'The service is busy.'}`, temporary.options.headers ?? {});
  }
  const status = clientStatusOf(error);
  if (status !== null) return new ConsolePageError(status, 'This request cannot be served', 'Check the address, or go back to the console.');
  return error === undefined ? null : new ConsolePageError(500, 'Something went wrong', `Nothing may have been changed. Quote request id ${requestId} when you contact support.`);
};

/**
 * The console's errors as pages (the API's error bodies are JSON; a browser
 * shows these instead): refusals with their status and what to do, temporary
 * failures as 503 with Retry-After, anything unexpected as a 500 naming the
 * request id, logged with it.
 */
export const consoleErrors =
  (deps: { readonly basePath: string; readonly logger: Logger }): Middleware =>
  async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const requestId = String(ctx.state.requestId ?? '');
      const page = pageOf(error, requestId)!;
      if (page.status >= 500) deps.logger.error({ err: error, requestId, method: ctx.method, path: ctx.path }, 'console request failed');
      ctx.status = page.status;
      for (const [name, value] of Object.entries(page.pageHeaders)) ctx.append(name, value);
      ctx.set('Cache-Control', 'no-store');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = layout({
        basePath: deps.basePath,
        title: page.title,
        body: html`<section class="panel error" aria-labelledby="error-title">
  <h1 id="error-title">${page.title}</h1>
  <p>${page.detail}</p>
  ${page.backToConsole ? html`<p><a href="${consoleUrl(deps.basePath)}">Back to the console</a></p>` : ''}
</section>`,
      }).text;
    }
  };
