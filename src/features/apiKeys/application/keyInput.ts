/**
 * What a way in checks before it issues a key, and how it words a refusal: the
 * key name's codec and the refusals' descriptions, from the domain.
 */
export { ApiKeyName } from '../domain/ApiKeyName.js';
export { describeApiKeyError } from '../domain/apiKeyErrors.js';
