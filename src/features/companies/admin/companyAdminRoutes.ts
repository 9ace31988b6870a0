import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import * as E from 'fp-ts/lib/Either.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { createCompany } from '../application/createCompany.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { ReadModelProgress } from '../../../application/subscriptions/ReadModelProgress.js';
import { validateCreateCompany, validateSuspendCompany } from '../domain/companyInput.js';
import { resumeCompany, suspendCompany, type CompanySuspensionOutcome } from '../application/companySuspension.js';
import type { ConsoleSessionStore } from '../../../application/ports/ConsoleSessionStore.js';
import { knownCompany } from './knownCompany.js';
import { PLATFORM_SCOPE, companiesProjection, companyOf, type CompanyDoc } from '../readModels/companiesProjection.js';
import { companyListQuery } from '../readModels/companyQueries.js';
import type { AdminResource } from '../../../http/AdminResource.js';
import { adminMetadata } from '../../../http/adminMetadata.js';
import { companyHttpError, companyNotFoundError } from './companyHttpErrors.js';
import type { CompanyErasureUnderWay, CompanyNotFound } from '../domain/companyErrors.js';
import type { Company } from '../domain/companyView.js';
import type { CompanyDataEraser } from '../../../application/personalData/CompanyDataEraser.js';
import { eraseCompany, requestCompanyDeletion } from '../application/companyDeletion.js';
import { HttpError } from '../../../http/HttpError.js';
import { afterWrite } from '../../../http/middleware/consistentReads.js';
import { adminCompanies as adminCompaniesOpenApi } from './companiesAdminOpenApi.js';
import { decodeListParams, pageMeta, validationFailed } from '../../../http/query/listQuery.js';

export interface AdminCompanyRoutesDeps {
  readonly companies: DocumentCollection<CompanyDoc>;
  readonly commands: CommandDeps;
  readonly progress: ReadModelProgress;
  readonly readYourWritesTimeoutMs: number;
  readonly idempotency: Middleware;
  /** The console's sessions: a suspension ends the company's. */
  readonly sessions: Pick<ConsoleSessionStore, 'endAll'>;
  /** A company's deletion: what forgets its data, how long a deletion waits, and the compaction after an erasure. */
  readonly deletion: {
    readonly data: CompanyDataEraser;
    readonly retentionMs: number;
    readonly compact: () => Promise<unknown>;
  };
}

/** A `now=true` erasure the read models are too far behind the log for. */
const readModelsBehind = (): HttpError =>
  new HttpError(503, 'Service unavailable', 'The company cannot be erased yet: the read models are catching up with the log. Retry in a moment.', {
    code: 'READ_MODELS_BEHIND',
    headers: { 'Retry-After': '1' },
  });

/** A `now=true` erasure of a company whose deletion was cancelled meanwhile. */
const deletionCancelled = (): HttpError =>
  new HttpError(409, 'Company deletion cancelled', 'The deletion was cancelled before the company could be erased; nothing was erased.');

/** `?now=`: absent or `false`, the deletion waits; `true`, the company is erased at once; anything else a 422. */
const eraseNow = (now: unknown): boolean => {
  if (now === undefined || now === 'false') return false;
  if (now === 'true') return true;
  throw validationFailed({ now: 'must be true or false' });
};

/** The platform's companies: create, list (search by name), get, suspend, resume and delete. */
export const adminCompanyRoutes = (deps: AdminCompanyRoutesDeps): Router => {
  const router = new Router();

  router.post('/admin/companies', deps.idempotency, async (ctx) => {
    const fields = validateCreateCompany(ctx.request.body);
    if (E.isLeft(fields)) throw companyHttpError(fields.left);
    const created = await createCompany(deps.commands, { name: fields.right.name, metadata: adminMetadata(ctx.state) });
    // A new id is never taken: the only refusal, "already exists", cannot happen here.
    if (E.isLeft(created)) throw new Error(`createCompany refused a new id: ${created.left.kind}`);
    await afterWrite(ctx, deps.progress, created.right.position, deps.readYourWritesTimeoutMs);
    ctx.status = 201;
    const { id, name, createdAt } = created.right;
    ctx.body = { success: true, data: { id, name, createdAt, status: 'active', suspendedAt: null, suspensionReason: null, eraseAfter: null } satisfies Company };
  });

  router.get('/admin/companies', async (ctx) => {
    const params = decodeListParams(ctx.query, { text: ['search'] });
    if (E.isLeft(params)) throw validationFailed(params.left);
    const { page, limit, text } = params.right;
    const result = await deps.companies.list(companyListQuery({ page, limit, ...(text.search !== undefined ? { search: text.search } : {}) }));
    ctx.body = { success: true, data: result.items.map(companyOf), meta: pageMeta(page, limit, result.total) };
  });

  router.get('/admin/companies/:id', async (ctx) => {
    const doc = await deps.companies.get(PLATFORM_SCOPE, ctx.params.id!);
    if (!doc) throw companyHttpError({ kind: 'CompanyNotFound', companyId: ctx.params.id! });
    ctx.body = { success: true, data: companyOf(doc) };
  });

  const lookup = { companies: deps.companies, eventStore: deps.commands.eventStore };
  /** The company as it is now; the read models waited for when something was recorded (no `X-Log-Position` otherwise). */
  const answer = async (ctx: Context, outcome: E.Either<CompanyNotFound | CompanyErasureUnderWay, CompanySuspensionOutcome>) => {
    if (E.isLeft(outcome)) throw companyHttpError(outcome.left);
    await afterWrite(ctx, deps.progress, outcome.right.position, deps.readYourWritesTimeoutMs);
    ctx.body = { success: true, data: outcome.right.company };
  };

  /**
   * Suspends the company: its API keys are refused (403 `Company suspended`), its
   * console sessions end and no new one opens, its webhook deliveries are held.
   * Suspending a suspended company records nothing and answers its suspension as it is.
   */
  router.post('/admin/companies/:id/suspend', async (ctx) => {
    const companyId = await knownCompany(lookup, ctx.params.id!);
    const body = validateSuspendCompany(ctx.request.body);
    if (E.isLeft(body)) throw companyHttpError(body.left);
    const outcome = await suspendCompany(deps.commands, { companyId, reason: body.right.reason, metadata: adminMetadata(ctx.state) });
    // Every time, a repeated suspension too: a session opened by a link redeemed meanwhile ends as well.
    if (E.isRight(outcome)) await deps.sessions.endAll({ companyId });
    await answer(ctx, outcome);
  });

  /** Resumes the company: everything suspension stopped works again. Resuming an active company records nothing. */
  router.post('/admin/companies/:id/resume', async (ctx) => {
    const companyId = await knownCompany(lookup, ctx.params.id!);
    await answer(ctx, await resumeCompany(deps.commands, { companyId, metadata: adminMetadata(ctx.state) }));
  });

  /**
   * Asks for the company's deletion: it is suspended at once, and erased after
   * DELETED_COMPANIES_RETENTION_DAYS (`?now=true`: at once); a resume meanwhile cancels it.
   */
  router.delete('/admin/companies/:id', async (ctx) => {
    const companyId = ctx.params.id!;
    const now = eraseNow(ctx.query.now);
    const metadata = adminMetadata(ctx.state);
    const requested = await requestCompanyDeletion(deps.commands, {
      companyId,
      retentionMs: deps.deletion.retentionMs,
      metadata,
    });
    if (E.isLeft(requested)) throw companyHttpError(requested.left);
    // A deletion suspends the company: its console sessions end now, as a suspension's do.
    await deps.sessions.endAll({ companyId });
    const { id, deletionRequestedAt, eraseAfter } = requested.right;
    if (!now) {
      await afterWrite(ctx, deps.progress, requested.right.position, deps.readYourWritesTimeoutMs);
      ctx.status = 202;
      ctx.body = { success: true, data: { id, deletionRequestedAt, eraseAfter } };
      return;
    }
    const erased = await eraseCompany(
      {
        commands: deps.commands,
        data: deps.deletion.data,
        waitForReadModels: (position) => deps.progress.waitFor(position, deps.readYourWritesTimeoutMs),
        compact: deps.deletion.compact,
      },
      { companyId, metadata },
    );
    if (E.isLeft(erased)) {
      // The deletion is recorded and waits: the same request sent again erases the company once the read models caught up.
      if (erased.left.kind === 'ReadModelsBehind') throw readModelsBehind();
      // A cancellation came between the request and the erasure (an erasure by another process answers as done).
      if (erased.left.kind === 'CompanyDeletionNotRequested') throw deletionCancelled();
      throw companyNotFoundError();
    }
    await afterWrite(ctx, deps.progress, erased.right.position, deps.readYourWritesTimeoutMs);
    ctx.status = 200;
    ctx.body = { success: true, data: { id, deletionRequestedAt, eraseAfter, erasedAt: erased.right.erasedAt } };
  });

  return router;
};

/** `/admin/companies`: the platform's customers. */
export const adminCompaniesResource: AdminResource = {
  openapi: adminCompaniesOpenApi,
  routes: (admin) => [
    adminCompanyRoutes({
      companies: admin.readModels.collection(companiesProjection),
      commands: admin.commands,
      ...admin.readYourWrites,
      idempotency: admin.idempotency('POST /admin/companies'),
      sessions: admin.console.sessions,
      deletion: { ...admin.companyDeletion, compact: () => admin.erasure.compactNow() },
    }),
  ],
};
