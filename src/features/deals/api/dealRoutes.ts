import Router from '@koa/router';
import type { Middleware } from 'koa';
import * as E from 'fp-ts/lib/Either.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { ReadModelProgress } from '../../../application/subscriptions/ReadModelProgress.js';
import type { AnsweredWrites } from '../../../application/subscriptions/AnsweredWrites.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { changeDealStatus } from '../application/changeDealStatus.js';
import { createDeal } from '../application/createDeal.js';
import { deleteDeal, restoreDeal } from '../application/deleteAndRestoreDeal.js';
import { validateCreateDeal, validateDealStatusChange } from '../domain/dealInput.js';
import { dealOf, type DealDoc } from '../readModels/dealsProjection.js';
import { dealListQuery } from '../readModels/dealQueries.js';
import { afterCreate, afterWrite } from '../../../http/middleware/consistentReads.js';
import { authOf, requirePermission } from '../../../http/middleware/requirePermission.js';
import { decodeListParams, pageMeta, validationFailed } from '../../../http/query/listQuery.js';
import { dealHttpError } from './dealHttpErrors.js';
import { apiMetadata } from '../../../http/apiMetadata.js';
import { dealAggregate } from '../application/dealAggregate.js';
import { entityHistoryRoute } from '../../../http/routes/entityHistory.js';
import { deleteAndRestoreRoutes } from '../../../http/routes/deleteAndRestore.js';
import type { Deal } from '../domain/dealView.js';
import type { Position } from '../../../shared/Position.js';
import { dealAsOf } from '../readModels/dealAsOf.js';
import { decodeAsOf } from '../../../http/query/asOfQuery.js';
import { answerWithEntityTag, ifMatchPrecondition, setEntityTagAfterWrite } from '../../../http/conditionalRequests.js';
import type { ApiResource } from '../../../http/ApiResource.js';
import { deals as dealsOpenApi } from './dealsOpenApi.js';
import { dealsProjection } from '../readModels/dealsProjection.js';

export interface DealRoutesDeps {
  readonly deals: DocumentCollection<DealDoc>;
  readonly commands: CommandDeps;
  readonly progress: ReadModelProgress;
  readonly readYourWritesTimeoutMs: number;
  /** The creates answered before their read models applied them, which this instance's reads wait for. */
  readonly answeredWrites: AnsweredWrites;
  /** `Idempotency-Key` on POST /deals (see `idempotency`); absent: the header is ignored. */
  readonly idempotency?: Middleware;
  /** How long a deleted deal stays restorable (DELETED_RECORDS_RETENTION_DAYS). */
  readonly deletedRecordsRetentionMs: number;
}

const passThrough: Middleware = (_ctx, next) => next();

const withPrecondition = <P>(precondition: P | undefined): { precondition?: P } => (precondition ? { precondition } : {});

const STATUSES = ['open', 'won', 'lost'] as const;

export const dealRoutes = (deps: DealRoutesDeps): Router => {
  const router = new Router();

  router.get('/deals', requirePermission('deals:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const params = decodeListParams(ctx.query, {
      text: ['stage'],
      instants: ['createdSince', 'updatedSince'],
      enums: { status: STATUSES },
    });
    if (E.isLeft(params)) throw validationFailed(params.left);
    const { page, limit, text, instants, enums } = params.right;
    const result = await deps.deals.list(
      dealListQuery({
        companyId,
        page,
        limit,
        ...(enums.status !== undefined ? { status: enums.status as (typeof STATUSES)[number] } : {}),
        ...(text.stage !== undefined ? { stage: text.stage } : {}),
        ...(instants.createdSince !== undefined ? { createdSince: instants.createdSince } : {}),
        ...(instants.updatedSince !== undefined ? { updatedSince: instants.updatedSince } : {}),
      }),
    );
    ctx.body = { success: true, data: result.items.map(dealOf), meta: pageMeta(page, limit, result.total) };
  });

  router.get('/deals/:id', requirePermission('deals:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const asOf = decodeAsOf(ctx.query);
    if (asOf !== undefined) {
      // Time travel: folded from the log up to that instant, with the read model's own evolve.
      const past = await dealAsOf(deps.commands.eventStore, { companyId, id: ctx.params.id!, asOf });
      if (!past) throw dealHttpError({ kind: 'DealNotFound' });
      ctx.body = { success: true, data: past };
      return;
    }
    const found = await deps.deals.getView(companyId, ctx.params.id!);
    if (!found) throw dealHttpError({ kind: 'DealNotFound' });
    answerWithEntityTag(ctx, found);
  });

  router.get(
    '/deals/:id/history',
    requirePermission('deals:read'),
    entityHistoryRoute(deps.commands.eventStore, dealAggregate, () => dealHttpError({ kind: 'DealNotFound' })),
  );

  router.post('/deals', requirePermission('deals:write'), deps.idempotency ?? passThrough, async (ctx) => {
    const auth = authOf(ctx.state);
    const fields = validateCreateDeal(ctx.request.body);
    if (E.isLeft(fields)) throw dealHttpError(fields.left);
    const result = await createDeal(deps.commands, { companyId: auth.companyId, fields: fields.right, metadata: apiMetadata(ctx.state) });
    if (E.isLeft(result)) throw dealHttpError(result.left);
    afterCreate(ctx, deps.answeredWrites, auth.companyId, result.right.position);
    ctx.status = 201;
    ctx.body = { success: true, data: result.right.deal };
  });

  router.put('/deals/:id/status', requirePermission('deals:write'), async (ctx) => {
    const auth = authOf(ctx.state);
    const change = validateDealStatusChange(ctx.request.body);
    if (E.isLeft(change)) throw dealHttpError(change.left);
    const result = await changeDealStatus(deps.commands, {
      companyId: auth.companyId,
      dealId: ctx.params.id!,
      change: change.right,
      metadata: apiMetadata(ctx.state),
      ...withPrecondition(ifMatchPrecondition(ctx)),
    });
    if (E.isLeft(result)) throw dealHttpError(result.left);
    await afterWrite(ctx, deps.progress, result.right.position, deps.readYourWritesTimeoutMs);
    setEntityTagAfterWrite(ctx, await deps.deals.get(auth.companyId, ctx.params.id!), result.right.revision);
    ctx.body = { success: true, data: result.right.deal };
  });

  deleteAndRestoreRoutes(router, {
    path: '/deals',
    permission: 'deals:write',
    commands: {
      delete: ({ id, ...input }) => deleteDeal(deps.commands, { ...input, dealId: id }),
      restore: async ({ id, ...input }) =>
        E.map(({ deal, position }: { deal: Deal; position: Position | null }) => ({ record: deal, position }))(
          await restoreDeal(deps.commands, { ...input, dealId: id }),
        ),
    },
    httpError: dealHttpError,
    progress: deps.progress,
    readYourWritesTimeoutMs: deps.readYourWritesTimeoutMs,
    retentionMs: deps.deletedRecordsRetentionMs,
  });

  return router;
};

/** `/deals`: the company's sales pipeline. */
export const dealsResource: ApiResource = {
  openapi: dealsOpenApi,
  // Its history is read from the log. GET /deals/:id waits as every read does: a create may
  // record a newer contact summary on its deal after DealCreated (DealContactRefreshed).
  findsFirst: ['/deals/:id/history'],
  routes: (api) => [
    dealRoutes({
      deals: api.readModels.collection(dealsProjection),
      commands: api.commands,
      ...api.readYourWrites,
      idempotency: api.idempotency('POST /deals'),
      deletedRecordsRetentionMs: api.deletedRecordsRetentionMs,
    }),
  ],
};
