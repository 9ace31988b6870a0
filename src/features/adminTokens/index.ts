import { adminTokenAggregate } from './application/adminTokenAggregate.js';
import { adminTokensCheck } from './readModels/adminTokensCheck.js';
import { adminTokensProjection } from './readModels/adminTokensProjection.js';
import { readModel, type Feature } from '../Feature.js';
import { adminTokenPersonalData } from './domain/adminTokenPersonalData.js';

/** Admin tokens of the platform's backend: issued and revoked with the CLI; looked up by hash on every admin request. */
export const adminTokens: Feature = {
  name: 'admin tokens',
  aggregates: [adminTokenAggregate],
  personalData: adminTokenPersonalData,
  secretEventFields: { AdminTokenIssued: ['tokenHash'] },
  readModels: [readModel(adminTokensProjection, adminTokensCheck)],
};

// What the CLI and the start-up use of this one.
export { issueAdminToken } from './application/issueAdminToken.js';
export { revokeAdminToken } from './application/revokeAdminToken.js';
export { AdminTokenName } from './domain/AdminTokenName.js';
export { describeAdminTokenError } from './domain/adminTokenErrors.js';
export { adminTokenOf, adminTokensProjection } from './readModels/adminTokensProjection.js';
export { freshAdminTokenVerifier } from './readModels/freshAdminTokenVerifier.js';
