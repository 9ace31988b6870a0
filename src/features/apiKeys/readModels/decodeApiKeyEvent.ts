import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import { ApiKeyEvent } from '../domain/apiKeyEvents.js';

/** Stored API-key events decoded once each, for the two read models that fold them. */
export const decodeApiKeyEvent = cachedDecoder(ApiKeyEvent);
