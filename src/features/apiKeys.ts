import { apiKeyAggregate } from '../application/aggregates/apiKeyAggregate.js';
import { testResource } from '../http/routes/test.js';
import { apiKeyDirectoryCheck } from '../../projections/apiKeys/apiKeyDirectoryCheck.js';
import { apiKeyDirectoryProjection } from '../../projections/apiKeys/apiKeyDirectoryProjection.js';
import { apiKeysCheck } from '../../projections/apiKeys/apiKeysCheck.js';
import { apiKeysProjection } from '../../projections/apiKeys/apiKeysProjection.js';
import { adminApiKeysResource } from '../http/routes/admin/apiKeys.js';
import { readModel, type Feature } from './Feature.js';

/** API keys: issued and revoked; looked up by hash on every request; `GET /test` checks one. */
export const apiKeys: Feature = {
  name: 'api keys',
  aggregates: [apiKeyAggregate],
  readModels: [readModel(apiKeysProjection, apiKeysCheck), readModel(apiKeyDirectoryProjection, apiKeyDirectoryCheck)],
  resources: [testResource],
  adminResources: [adminApiKeysResource],
};
