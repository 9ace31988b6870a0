import { companyAggregate } from '../application/companyAggregate.js';
import type { CompanyState } from '../domain/companyDecider.js';
import { check, expectedFrom, observedAt } from '../../../application/verify/verifyCheck.js';
import { companiesProjection, companyOf, PLATFORM_SCOPE, type CompanyDoc } from './companiesProjection.js';

/** Every company's stream has its document, with the name and the status (suspended since when) its stream records. */
export const companiesCheck = check<CompanyDoc>({
  projection: companiesProjection,
  folds: [companyAggregate.fold],
  expected: (folds) =>
    expectedFrom<CompanyState>(folds, companyAggregate.fold, (state) =>
      state.status === 'created'
        ? {
            companyId: PLATFORM_SCOPE,
            id: state.companyId,
            fields: {
              id: state.companyId,
              name: state.name,
              status: state.suspension === null ? 'active' : 'suspended',
              suspendedAt: state.suspension?.suspendedAt ?? null,
            },
          }
        : null,
    ),
  observed: (doc) => {
    const company = companyOf(doc);
    return observedAt(doc, { id: company.id, name: company.name, status: company.status, suspendedAt: company.suspendedAt });
  },
});
