import { companyAggregate } from '../application/companyAggregate.js';
import type { CompanyState } from '../domain/companyDecider.js';
import { check, expectedFrom, observedAt } from '../../../application/verify/verifyCheck.js';
import { companiesProjection, PLATFORM_SCOPE, type CompanyDoc } from './companiesProjection.js';

/** Every company's stream has its document, with the name its stream records. */
export const companiesCheck = check<CompanyDoc>({
  projection: companiesProjection,
  folds: [companyAggregate.fold],
  expected: (folds) =>
    expectedFrom<CompanyState>(folds, companyAggregate.fold, (state) =>
      state.status === 'created' ? { companyId: PLATFORM_SCOPE, id: state.companyId, fields: { id: state.companyId, name: state.name } } : null,
    ),
  observed: (doc) => observedAt(doc, { id: doc.company.id, name: doc.company.name }),
});
