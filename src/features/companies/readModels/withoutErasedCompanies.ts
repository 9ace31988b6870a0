import type { Expected, ReadModelCheck } from '../../../application/verify/ReadModelCheck.js';
import type { AggregateFold } from '../../../application/verify/logFolds.js';
import { companyAggregate } from '../application/companyAggregate.js';

/**
 * A read model's check (`chronicle verify`) that expects no document of an erased
 * company: the read models drop them all at its `CompanyErased`
 * (`erasedWithCompany`), whatever the other streams of the company say. Documents
 * are keyed `<companyId>/<id>`.
 */
export const withoutErasedCompanies = (check: ReadModelCheck): ReadModelCheck => {
  const companies = companyAggregate.fold as AggregateFold<unknown>;
  return {
    ...check,
    folds: check.folds.includes(companies) ? check.folds : [...check.folds, companies],
    *expected(folds): Iterable<Expected> {
      const erased = new Set<string>();
      for (const state of folds.streamsOf(companyAggregate.fold).values()) if (state.status === 'erased') erased.add(state.companyId);
      for (const expected of check.expected(folds)) {
        if (!erased.has(expected.key.slice(0, expected.key.indexOf('/')))) yield expected;
      }
    },
  };
};
