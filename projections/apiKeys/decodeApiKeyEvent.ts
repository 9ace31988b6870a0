import { cachedDecoder } from '../../src/application/versioning/decodeStoredEvent.js';
import { ApiKeyEvent } from '../../src/domain/apiKeys/apiKeyEvents.js';

/** Stored API-key events decoded once each, for the two read models that fold them. */
export const decodeApiKeyEvent = cachedDecoder(ApiKeyEvent);
