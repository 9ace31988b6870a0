import { adminTokenAggregate } from './application/adminTokenAggregate.js';
import { adminTokensCheck } from './readModels/adminTokensCheck.js';
import { adminTokensProjection } from './readModels/adminTokensProjection.js';
import { readModel, type Feature } from '../Feature.js';

/** Admin tokens of the platform's backend: issued and revoked with the CLI; looked up by hash on every admin request. */
export const adminTokens: Feature = {
  name: 'admin tokens',
  aggregates: [adminTokenAggregate],
  readModels: [readModel(adminTokensProjection, adminTokensCheck)],
};
