import { keyRoutes } from './console/keyRoutes.js';
import { apiKeyAggregate } from './application/apiKeyAggregate.js';
import { testResource } from './api/testRoutes.js';
import { apiKeyDirectoryCheck } from './readModels/apiKeyDirectoryCheck.js';
import { apiKeyDirectoryProjection } from './readModels/apiKeyDirectoryProjection.js';
import { apiKeysCheck } from './readModels/apiKeysCheck.js';
import { apiKeysProjection } from './readModels/apiKeysProjection.js';
import { adminApiKeysResource } from './admin/apiKeyAdminRoutes.js';
import { readModel, type Feature } from '../Feature.js';

/** API keys: issued and revoked; looked up by hash on every request; `GET /test` checks one. */
export const apiKeys: Feature = {
  name: 'api keys',
  aggregates: [apiKeyAggregate],
  readModels: [readModel(apiKeysProjection, apiKeysCheck), readModel(apiKeyDirectoryProjection, apiKeyDirectoryCheck)],
  resources: [testResource],
  adminResources: [adminApiKeysResource],
  consolePages: [{ routes: keyRoutes, signedIn: true }],
};

// What other features use of this one.
export { keyLabel, keyState } from './console/keyLabel.js';
export { apiKeysProjection } from './readModels/apiKeysProjection.js';
export type { ApiKeyDoc } from './readModels/apiKeysProjection.js';
