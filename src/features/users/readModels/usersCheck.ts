import { userAggregate } from '../application/userAggregate.js';
import type { UserState } from '../domain/userDecider.js';
import { check, expectedFrom, observedAt } from '../../../application/verify/verifyCheck.js';
import { usersProjection, type UserDoc } from './usersProjection.js';

/** A user's state holds only who it is: the check is that every user, erased or not, has its document and no more. */
export const usersCheck = check<UserDoc>({
  projection: usersProjection,
  folds: [userAggregate.fold],
  expected: (folds) =>
    expectedFrom<UserState>(folds, userAggregate.fold, (state) =>
      state.status !== 'none' ? { companyId: state.companyId, id: state.userId, fields: { companyId: state.companyId, id: state.userId } } : null,
    ),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, id: doc.id }),
});
