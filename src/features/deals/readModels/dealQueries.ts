import type { Filter, ListQuery } from '../../../application/ports/ReadModelStore.js';
import type { DealStatus } from '../domain/dealEvents.js';
import { requireInstant } from '../../../shared/instant.js';

export interface DealListParams {
  readonly companyId: string;
  readonly status?: DealStatus;
  /** Exact, case-sensitive stage name (stages are client-defined strings). */
  readonly stage?: string;
  /** ISO 8601; deals created strictly after it. */
  readonly createdSince?: string;
  /** ISO 8601; deals updated strictly after it. */
  readonly updatedSince?: string;
  /** 1-based. */
  readonly page: number;
  readonly limit: number;
}

/**
 * Document paths of the searched fields (the view is nested under `deal`): the
 * deal's title and its contact's summary. The console's search reads them; the
 * API's `GET /deals` has no search. The contact's fields are personal (the
 * contact's, declared in `dealPersonalData`): each engine's searched texts are
 * rewritten with the document, so an erasure, which empties the summary,
 * empties them too.
 */
export const DEAL_SEARCH_FIELDS = ['deal.title', 'deal.contact.name', 'deal.contact.email', 'deal.contact.phoneNumber'] as const;

/** GET /deals as a typed read-model query: filters combine; oldest first (creation order). */
export const dealListQuery = (params: DealListParams): ListQuery => {
  const filters: Filter[] = [];
  if (params.status !== undefined) filters.push({ op: 'eq', field: 'deal.status', value: params.status });
  if (params.stage !== undefined) filters.push({ op: 'eq', field: 'deal.stage', value: params.stage });
  if (params.createdSince !== undefined) {
    filters.push({ op: 'gt', field: 'deal.createdAt', value: requireInstant('createdSince', params.createdSince) });
  }
  if (params.updatedSince !== undefined) {
    filters.push({ op: 'gt', field: 'deal.updatedAt', value: requireInstant('updatedSince', params.updatedSince) });
  }
  return { companyId: params.companyId, filters, page: params.page, limit: params.limit, order: 'asc' };
};
