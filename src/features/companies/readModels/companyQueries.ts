import type { Filter, ListQuery } from '../../../application/ports/ReadModelStore.js';
import { PLATFORM_SCOPE } from './companiesProjection.js';

export interface CompanyListParams {
  /** Case-insensitive literal text within the name. */
  readonly search?: string;
  /** 1-based. */
  readonly page: number;
  readonly limit: number;
}

/** GET /admin/companies as a typed read-model query: the platform's partition, oldest first (creation order). */
export const companyListQuery = (params: CompanyListParams): ListQuery => {
  const filters: Filter[] = [];
  const search = params.search?.trim();
  if (search) filters.push({ op: 'contains', fields: ['company.name'], text: search });
  return { companyId: PLATFORM_SCOPE, filters, page: params.page, limit: params.limit, order: 'asc' };
};
