import { apiKeyAggregate } from '../application/apiKeyAggregate.js';
import type { ApiKeyState } from '../domain/apiKeyDecider.js';
import { check } from '../../../application/verify/verifyCheck.js';
import { apiKeyDirectoryProjection, type ApiKeyDirectoryDoc } from './apiKeyDirectoryProjection.js';

/**
 * The directory is keyed by the key's hash, which the key's state does not
 * keep: documents are matched by key id instead, and named by it (never by the hash).
 */
export const apiKeyDirectoryCheck = check<ApiKeyDirectoryDoc>({
  projection: apiKeyDirectoryProjection,
  folds: [apiKeyAggregate.fold],
  *expected(folds) {
    for (const [stream, state] of folds.streamsOf<ApiKeyState>(apiKeyAggregate.fold)) {
      if (state.status === 'none') continue;
      yield {
        key: state.keyId,
        label: `key ${state.keyId}`,
        stream,
        fields: { keyId: state.keyId, ownerCompanyId: state.companyId, revoked: state.status === 'revoked' },
      };
    }
  },
  observed: (doc) => ({
    key: doc.keyId,
    label: `key ${doc.keyId}`,
    position: doc.position,
    fields: { keyId: doc.keyId, ownerCompanyId: doc.ownerCompanyId, revoked: doc.revoked },
  }),
});
