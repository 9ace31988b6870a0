import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { Middleware } from 'koa';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { consoleLinkUrl } from '../routes/consoleLinkUrl.js';
import { issueConsoleLink } from '../application/issueConsoleLink.js';
import { endCompanyConsoleSessions } from '../../../application/consoleSessions/consoleSession.js';
import type { ConsoleSessionStore } from '../../../application/ports/ConsoleSessionStore.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import { companiesProjection, type CompanyDoc } from '../../companies/index.js';
import type { AdminResource } from '../../../http/AdminResource.js';
import { adminMetadata } from '../../../http/adminMetadata.js';
import { companyHttpError } from '../../companies/index.js';
import { LOG_POSITION_HEADER } from '../../../http/middleware/consistentReads.js';
import type { StoredBodyCodec } from '../../../http/middleware/idempotency.js';
import { adminConsoleSessions as adminConsoleSessionsOpenApi } from './consoleSessionsAdminOpenApi.js';
import { validateCreateBody } from '../../../shared/bodyInput.js';
import { knownCompany } from '../../companies/index.js';

/** The body: a JSON object, with no fields yet (room for options such as a shorter validity). */
const ConsoleSessionBody = t.type({});

export interface AdminConsoleSessionRoutesDeps {
  readonly companies: DocumentCollection<CompanyDoc>;
  readonly commands: CommandDeps;
  /** CONSOLE_PUBLIC_URL; unset: the link points at the scheme and host the admin request came to (forwarded ones with TRUST_PROXY). */
  readonly publicUrl: string | undefined;
  readonly basePath: string;
  readonly sessions: Pick<ConsoleSessionStore, 'endAll'>;
  readonly idempotency: Middleware;
}

/**
 * An issued link's response as `Idempotency-Key` keeps it: without the link,
 * whose secret is stored nowhere (only its hash is). A replay answers the same
 * `expiresAt` with `url: null`: the link was shown once; whoever lost it asks
 * for another.
 */
export const linkShownOnce: StoredBodyCodec = {
  store: (body) => {
    const { data, ...rest } = body as { data: Record<string, unknown> };
    return { ...rest, data: { ...data, url: null } };
  },
  replay: async (stored) => stored,
};

/**
 * `POST /admin/companies/:id/console-sessions`: a single-use link into the
 * company's console, valid for 15 minutes, for the platform to hand to its
 * customer (as `chronicle console link` prints one). Each call issues a new
 * link; a replay of an `Idempotency-Key` does not show the link again.
 */
export const adminConsoleSessionRoutes = (deps: AdminConsoleSessionRoutesDeps): Router => {
  const router = new Router();
  const lookup = { companies: deps.companies, eventStore: deps.commands.eventStore };

  router.post('/admin/companies/:id/console-sessions', deps.idempotency, async (ctx) => {
    const companyId = await knownCompany(lookup, ctx.params.id!);
    const body = validateCreateBody(ConsoleSessionBody, [], ctx.request.body);
    if (E.isLeft(body)) throw companyHttpError(body.left);
    const issued = await issueConsoleLink(deps.commands, { companyId, metadata: adminMetadata(ctx.state) });
    if (E.isLeft(issued)) {
      if (issued.left.kind === 'CompanyNotFound' || issued.left.kind === 'CompanyIsSuspended') throw companyHttpError(issued.left);
      throw new Error(`issueConsoleLink refused a new link: ${issued.left.kind}`);
    }
    if (issued.right.position) ctx.set(LOG_POSITION_HEADER, issued.right.position);
    ctx.status = 201;
    ctx.body = {
      success: true,
      data: { url: consoleLinkUrl(deps.publicUrl ?? `${ctx.protocol}://${ctx.host}`, deps.basePath, issued.right.token), expiresAt: issued.right.expiresAt },
    };
  });

  /**
   * `DELETE /admin/companies/:id/console-sessions`: ends every console session of
   * the company at once, on every process (the sessions are in the shared store);
   * each browser is signed out at its next request. Links not yet used still open
   * a session: the platform stops asking for links when it offboards a customer.
   */
  router.delete('/admin/companies/:id/console-sessions', async (ctx) => {
    const companyId = await knownCompany(lookup, ctx.params.id!);
    const ended = await endCompanyConsoleSessions(deps.sessions, companyId);
    ctx.body = { success: true, data: { companyId, ended } };
  });

  return router;
};

/** `/admin/companies/:id/console-sessions`: links into a company's customer console, and ending its sessions. */
export const adminConsoleSessionsResource: AdminResource = {
  openapi: adminConsoleSessionsOpenApi,
  routes: (admin) => [
    adminConsoleSessionRoutes({
      companies: admin.readModels.collection(companiesProjection),
      commands: admin.commands,
      publicUrl: admin.console.publicUrl,
      basePath: admin.console.basePath,
      sessions: admin.console.sessions,
      idempotency: admin.idempotency('POST /admin/companies/:id/console-sessions', linkShownOnce),
    }),
  ],
};
