import { adminTokenAggregate } from '../application/aggregates/adminTokenAggregate.js';
import { adminTokensCheck } from '../../projections/adminTokens/adminTokensCheck.js';
import { adminTokensProjection } from '../../projections/adminTokens/adminTokensProjection.js';
import { readModel, type Feature } from './Feature.js';

/** Admin tokens of the platform's backend: issued and revoked with the CLI; looked up by hash on every admin request. */
export const adminTokens: Feature = {
  name: 'admin tokens',
  aggregates: [adminTokenAggregate],
  readModels: [readModel(adminTokensProjection, adminTokensCheck)],
};
