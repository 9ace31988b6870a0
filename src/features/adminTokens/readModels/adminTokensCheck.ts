import { adminTokenAggregate } from '../application/adminTokenAggregate.js';
import type { AdminTokenState } from '../domain/adminTokenDecider.js';
import { check } from '../../../application/verify/verifyCheck.js';
import { adminTokensProjection, type AdminTokenDoc } from './adminTokensProjection.js';

/**
 * Documents are keyed by the token's hash, which the token's state does not
 * keep: they are matched by token id instead, and named by it (never by the hash).
 */
export const adminTokensCheck = check<AdminTokenDoc>({
  projection: adminTokensProjection,
  folds: [adminTokenAggregate.fold],
  *expected(folds) {
    for (const [stream, state] of folds.streamsOf<AdminTokenState>(adminTokenAggregate.fold)) {
      if (state.status === 'none') continue;
      yield {
        key: state.tokenId,
        label: `admin token ${state.tokenId}`,
        stream,
        fields: { tokenId: state.tokenId, name: state.name, revokedAt: state.status === 'revoked' ? state.revokedAt : null },
      };
    }
  },
  observed: (doc) => ({
    key: doc.tokenId,
    label: `admin token ${doc.tokenId}`,
    position: doc.position,
    fields: { tokenId: doc.tokenId, name: doc.name, revokedAt: doc.revokedAt },
  }),
});
