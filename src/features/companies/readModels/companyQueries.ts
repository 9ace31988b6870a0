import type { Filter, ListQuery, ReadModelStore } from '../../../application/ports/ReadModelStore.js';
import { PLATFORM_SCOPE, companiesProjection, companyOf, deletionsDueQuery, erasuresUnderWayQuery, isSuspendedDoc } from './companiesProjection.js';

/** Companies listed per read of the suspended ones. */
const SUSPENDED_PAGE = 500;

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

/** Whether the read model has the company suspended now (false for one it does not have yet). */
export const companySuspendedReader = (readModels: Pick<ReadModelStore, 'collection'>): ((companyId: string) => Promise<boolean>) => {
  const companies = readModels.collection(companiesProjection);
  return async (companyId) => {
    const company = await companies.get(PLATFORM_SCOPE, companyId);
    return company !== null && isSuspendedDoc(company);
  };
};

/** A company's name as pages show it: from the read model, or its id while the read model does not have it yet. */
export const companyNameReader = (readModels: Pick<ReadModelStore, 'collection'>): ((companyId: string) => Promise<string>) => {
  const companies = readModels.collection(companiesProjection);
  return async (companyId) => {
    const company = await companies.get(PLATFORM_SCOPE, companyId);
    return company ? companyOf(company).name : companyId;
  };
};

/**
 * The ids of the companies the read model has suspended now (listed by
 * `company.status`, indexed): whose webhook deliveries the dispatcher holds.
 */
export const suspendedCompaniesReader = (readModels: Pick<ReadModelStore, 'collection'>): (() => Promise<ReadonlySet<string>>) => {
  const companies = readModels.collection(companiesProjection);
  return async () => {
    const suspended = new Set<string>();
    for (let page = 1; ; page += 1) {
      const { items } = await companies.list({
        companyId: PLATFORM_SCOPE,
        filters: [{ op: 'eq', field: 'company.status', value: 'suspended' }],
        page,
        limit: SUSPENDED_PAGE,
        order: 'asc',
      });
      for (const doc of items) suspended.add(doc.company.id);
      if (items.length < SUSPENDED_PAGE) return suspended;
    }
  };
};

/**
 * The ids of the companies whose erasure is due (`CompanyDeletionSweep`'s `due`): those
 * whose erasure began and did not end, then those whose waiting deletion has an
 * `eraseAfter` before `at`; up to `limit` of each.
 */
export const deletionsDue =
  (readModels: Pick<ReadModelStore, 'collection'>) =>
  async (at: Date, limit: number): Promise<string[]> => {
    const companies = readModels.collection(companiesProjection);
    const underWay = (await companies.list(erasuresUnderWayQuery(limit))).items;
    const due = (await companies.list(deletionsDueQuery(at, limit))).items;
    return [...new Set([...underWay, ...due].map((doc) => doc.id))];
  };
