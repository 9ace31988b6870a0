import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import { PLATFORM_SCOPE, companyOf, type Company, type CompanyDoc } from '../../../../projections/companies/companiesProjection.js';
import { toHttpError } from '../../errorTable.js';

/**
 * The company of an admin route's `:id`, from the companies read model (which a
 * write that created it has waited for), or the 404 `Company not found`.
 */
export const knownCompany = async (companies: DocumentCollection<CompanyDoc>, companyId: string): Promise<Company> => {
  const doc = await companies.get(PLATFORM_SCOPE, companyId);
  if (!doc) throw toHttpError({ kind: 'CompanyNotFound', companyId });
  return companyOf(doc);
};
