import type { Filter, ListQuery } from '../../../application/ports/ReadModelStore.js';
import type { AgentStatus } from '../domain/AgentStatus.js';

export interface AgentListParams {
  readonly companyId: string;
  /** Only agents with this status. */
  readonly status?: AgentStatus;
  /** 1-based. */
  readonly page: number;
  readonly limit: number;
}

/** GET /agents as a typed read-model query: oldest first (creation order). */
export const agentListQuery = (params: AgentListParams): ListQuery => {
  const filters: Filter[] = [];
  if (params.status !== undefined) filters.push({ op: 'eq', field: 'agent.status', value: params.status });
  return { companyId: params.companyId, filters, page: params.page, limit: params.limit, order: 'asc' };
};
