import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import { AGENT_STATUSES, type AgentStatus } from '../domain/AgentStatus.js';
import { agentOf, type AgentDoc } from '../readModels/agentsProjection.js';
import { agentListQuery } from '../readModels/agentQueries.js';
import { HttpError } from '../../../http/HttpError.js';
import { authOf, requirePermission } from '../../../http/middleware/requirePermission.js';
import { decodeListParams, pageMeta, validationFailed } from '../../../http/query/listQuery.js';
import type { ApiResource } from '../../../http/ApiResource.js';
import { agents as agentsOpenApi } from './agentsOpenApi.js';
import { agentsProjection } from '../readModels/agentsProjection.js';

export interface AgentRoutesDeps {
  readonly agents: DocumentCollection<AgentDoc>;
}

const agentNotFound = (): HttpError => new HttpError(404, 'Agent not found', 'No agent with this id exists in your company.');

/** The agents resource (read-only: agents are managed with `chronicle agents`). */
export const agentRoutes = (deps: AgentRoutesDeps): Router => {
  const router = new Router();

  router.get('/agents', requirePermission('agents:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const params = decodeListParams(ctx.query, { enums: { status: AGENT_STATUSES } });
    if (E.isLeft(params)) throw validationFailed(params.left);
    const { page, limit, enums } = params.right;
    const status = enums.status as AgentStatus | undefined;
    const result = await deps.agents.list(agentListQuery({ companyId, page, limit, ...(status !== undefined ? { status } : {}) }));
    ctx.body = { success: true, data: result.items.map(agentOf), meta: pageMeta(page, limit, result.total) };
  });

  router.get('/agents/:id', requirePermission('agents:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const doc = await deps.agents.get(companyId, ctx.params.id!);
    if (!doc) throw agentNotFound();
    ctx.body = { success: true, data: agentOf(doc) };
  });

  return router;
};

/** `/agents`: the company's AI agents (read only; the platform manages them). */
export const agentsResource: ApiResource = {
  openapi: agentsOpenApi,
  routes: (api) => [agentRoutes({ agents: api.readModels.collection(agentsProjection) })],
};
