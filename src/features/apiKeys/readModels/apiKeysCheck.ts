import { apiKeyAggregate } from '../application/apiKeyAggregate.js';
import type { ApiKeyState } from '../domain/apiKeyDecider.js';
import { check, expectedFrom, observedAt } from '../../../application/verify/verifyCheck.js';
import { apiKeysProjection, type ApiKeyDoc } from './apiKeysProjection.js';

/** Every key's stream has its document, revoked when its stream says so. */
export const apiKeysCheck = check<ApiKeyDoc>({
  projection: apiKeysProjection,
  folds: [apiKeyAggregate.fold],
  expected: (folds) =>
    expectedFrom<ApiKeyState>(folds, apiKeyAggregate.fold, (state) =>
      state.status === 'none'
        ? null
        : {
            companyId: state.companyId,
            id: state.keyId,
            fields: { companyId: state.companyId, id: state.keyId, revokedAt: state.status === 'revoked' ? state.revokedAt : null },
          },
    ),
  observed: (doc) => observedAt(doc, { companyId: doc.companyId, id: doc.id, revokedAt: doc.revokedAt }),
});
