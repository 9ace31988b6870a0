import Router from '@koa/router';
import type { Middleware } from 'koa';
import * as E from 'fp-ts/lib/Either.js';
import { createAgent } from '../application/createAgent.js';
import { updateAgent } from '../application/updateAgent.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { ReadModelProgress } from '../../../application/subscriptions/ReadModelProgress.js';
import { validateCreateAgent, validateUpdateAgent } from '../domain/agentInput.js';
import { toAgentView } from '../domain/agentRecord.js';
import { AGENT_STATUSES, type AgentStatus } from '../domain/AgentStatus.js';
import { agentOf, agentsProjection, type AgentDoc } from '../readModels/agentsProjection.js';
import { agentListQuery } from '../readModels/agentQueries.js';
import { companiesProjection, type CompanyDoc } from '../../companies/index.js';
import type { AdminResource } from '../../../http/AdminResource.js';
import { adminMetadata } from '../../../http/adminMetadata.js';
import { agentHttpError } from './agentHttpErrors.js';
import { afterWrite } from '../../../http/middleware/consistentReads.js';
import { adminAgents as adminAgentsOpenApi } from './agentsAdminOpenApi.js';
import { decodeListParams, pageMeta, validationFailed } from '../../../http/query/listQuery.js';
import { knownCompany } from '../../companies/index.js';

export interface AdminAgentRoutesDeps {
  readonly companies: DocumentCollection<CompanyDoc>;
  readonly agents: DocumentCollection<AgentDoc>;
  readonly commands: CommandDeps;
  readonly progress: ReadModelProgress;
  readonly readYourWritesTimeoutMs: number;
  readonly idempotency: Middleware;
}

/** A company's AI agents: create, list, get, change (as `chronicle agents` does). */
export const adminAgentRoutes = (deps: AdminAgentRoutesDeps): Router => {
  const router = new Router();
  const lookup = { companies: deps.companies, eventStore: deps.commands.eventStore };
  const company = (id: string) => knownCompany(lookup, id);

  router.post('/admin/companies/:id/agents', deps.idempotency, async (ctx) => {
    const companyId = await company(ctx.params.id!);
    const fields = validateCreateAgent(ctx.request.body);
    if (E.isLeft(fields)) throw agentHttpError(fields.left);
    const created = await createAgent(deps.commands, { companyId, fields: fields.right, metadata: adminMetadata(ctx.state) });
    if (E.isLeft(created)) {
      if (created.left.kind !== 'CompanyNotFound') throw new Error(`createAgent refused a new id: ${created.left.kind}`);
      throw agentHttpError(created.left);
    }
    await afterWrite(ctx, deps.progress, created.right.position, deps.readYourWritesTimeoutMs);
    ctx.status = 201;
    ctx.body = { success: true, data: toAgentView(created.right.agent) };
  });

  router.get('/admin/companies/:id/agents', async (ctx) => {
    const companyId = await company(ctx.params.id!);
    const params = decodeListParams(ctx.query, { enums: { status: AGENT_STATUSES } });
    if (E.isLeft(params)) throw validationFailed(params.left);
    const { page, limit, enums } = params.right;
    const status = enums.status as AgentStatus | undefined;
    const result = await deps.agents.list(agentListQuery({ companyId, page, limit, ...(status !== undefined ? { status } : {}) }));
    ctx.body = { success: true, data: result.items.map(agentOf), meta: pageMeta(page, limit, result.total) };
  });

  router.get('/admin/companies/:id/agents/:agentId', async (ctx) => {
    const companyId = await company(ctx.params.id!);
    const doc = await deps.agents.get(companyId, ctx.params.agentId!);
    if (!doc) throw agentHttpError({ kind: 'AgentNotFound', agentId: ctx.params.agentId! });
    ctx.body = { success: true, data: agentOf(doc) };
  });

  router.patch('/admin/companies/:id/agents/:agentId', async (ctx) => {
    const companyId = await company(ctx.params.id!);
    const changes = validateUpdateAgent(ctx.request.body);
    if (E.isLeft(changes)) throw agentHttpError(changes.left);
    const updated = await updateAgent(deps.commands, { agentId: ctx.params.agentId!, companyId, changes: changes.right, metadata: adminMetadata(ctx.state) });
    if (E.isLeft(updated)) {
      if (updated.left.kind !== 'AgentNotFound') throw new Error(`updateAgent refused: ${updated.left.kind}`);
      throw agentHttpError(updated.left);
    }
    await afterWrite(ctx, deps.progress, updated.right.position, deps.readYourWritesTimeoutMs);
    ctx.body = { success: true, data: toAgentView(updated.right.agent) };
  });

  return router;
};

/** `/admin/companies/:id/agents`: a company's AI agents. */
export const adminAgentsResource: AdminResource = {
  openapi: adminAgentsOpenApi,
  routes: (admin) => [
    adminAgentRoutes({
      companies: admin.readModels.collection(companiesProjection),
      agents: admin.readModels.collection(agentsProjection),
      commands: admin.commands,
      ...admin.readYourWrites,
      idempotency: admin.idempotency('POST /admin/companies/:id/agents'),
    }),
  ],
};
