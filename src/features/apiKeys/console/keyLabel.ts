import { apiKeyNameOf, type ApiKeyDoc } from '../readModels/apiKeysProjection.js';

/** How a key is named on a page: its name when it has one, else its hint (`chr_...abcd`). */
export const keyLabel = (doc: ApiKeyDoc): string => apiKeyNameOf(doc) ?? doc.keyHint;

/** Whether a key works now: active, revoked, or expired. */
export const keyState = (doc: ApiKeyDoc, now: Date): 'active' | 'revoked' | 'expired' => {
  if (doc.revokedAt !== null) return 'revoked';
  return doc.expiresAt !== null && Date.parse(doc.expiresAt) <= now.getTime() ? 'expired' : 'active';
};
