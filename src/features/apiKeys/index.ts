import { keyRoutes } from './console/keyRoutes.js';
import { apiKeyAggregate } from './application/apiKeyAggregate.js';
import { testResource } from './api/testRoutes.js';
import { apiKeyDirectoryCheck } from './readModels/apiKeyDirectoryCheck.js';
import { apiKeyDirectoryProjection } from './readModels/apiKeyDirectoryProjection.js';
import { apiKeysCheck } from './readModels/apiKeysCheck.js';
import { apiKeysProjection } from './readModels/apiKeysProjection.js';
import { documentFields, exportedRecords } from '../../application/companyExport/ExportedRecords.js';
import { adminApiKeysResource } from './admin/apiKeyAdminRoutes.js';
import { apiKeyQueries, type ApiKeyQueriesOf } from './application/apiKeyQueries.js';
import { readModel, type Feature } from '../Feature.js';
import { apiKeyPersonalData } from './domain/apiKeyPersonalData.js';

/** The queries of a company's keys over the read models: the console's pages, this feature's and others'. */
export const apiKeyQueriesOf: ApiKeyQueriesOf = (readModels) => apiKeyQueries(readModels.collection(apiKeysProjection));

/** API keys: issued and revoked; looked up by hash on every request; `GET /test` checks one. */
export const apiKeys: Feature = {
  name: 'api keys',
  aggregates: [apiKeyAggregate],
  personalData: apiKeyPersonalData,
  readModels: [readModel(apiKeysProjection, apiKeysCheck), readModel(apiKeyDirectoryProjection, apiKeyDirectoryCheck)],
  resources: [testResource],
  adminResources: [adminApiKeysResource],
  // The listing's fields: the hint, never the key or its hash (the directory, which holds the hash, is not exported).
  exports: [exportedRecords('api_keys', apiKeysProjection, documentFields)],
  secretEventFields: { ApiKeyIssued: ['keyHash'] },
  consolePages: [{ routes: keyRoutes(apiKeyQueriesOf), signedIn: true }],
};

// What other features use of this one.
export { keyLabel, keyState } from './application/apiKeyQueries.js';
export type { ApiKeyQueries, ApiKeyView, KeyState } from './application/apiKeyQueries.js';
export { apiKeysProjection } from './readModels/apiKeysProjection.js';
export type { ApiKeyDoc } from './readModels/apiKeysProjection.js';

// What the CLI and the start-up use of this one.
export { issueApiKey } from './application/issueApiKey.js';
export { revokeApiKey } from './application/revokeApiKey.js';
export { ApiKeyName } from './domain/ApiKeyName.js';
export { describeApiKeyError } from './domain/apiKeyErrors.js';
export { apiKeyDirectoryProjection } from './readModels/apiKeyDirectoryProjection.js';
export { apiKeyNameOf } from './readModels/apiKeysProjection.js';
export { freshApiKeyVerifier } from './readModels/freshApiKeyVerifier.js';
