import type { AuthContext } from '../../src/application/apiKeys/AuthContext.js';
import { API_KEY_DIRECTORY, type ApiKeyDirectoryDoc } from './apiKeyDirectoryProjection.js';
import { hashApiKey, isWellFormedApiKey } from '../../src/shared/apiKeyFormat.js';
import type { DocumentCollection } from '../../src/application/ports/ReadModelStore.js';

export type ApiKeyVerification =
  /** Not a Chronicle key at all (prefix, length, alphabet or checksum): no lookup was made. */
  | { readonly kind: 'malformed' }
  /** Well formed, but unknown, revoked or expired. */
  | { readonly kind: 'invalid' }
  | { readonly kind: 'valid'; readonly auth: AuthContext };

/**
 * Checks a presented key. The key is hashed and looked up by its hash: keys are
 * never stored or compared, only hashes (a timing difference in the lookup could
 * tell at most something about a hash, which says nothing about any key).
 * Revocation reaches a running server as fast as its projection follows the log.
 */
export const verifyApiKey = async (
  directory: DocumentCollection<ApiKeyDirectoryDoc>,
  presented: string,
  now: Date,
): Promise<ApiKeyVerification> => {
  if (!isWellFormedApiKey(presented)) return { kind: 'malformed' };
  const entry = await directory.get(API_KEY_DIRECTORY, hashApiKey(presented));
  if (!entry || entry.revoked) return { kind: 'invalid' };
  if (entry.expiresAt !== null && Date.parse(entry.expiresAt) <= now.getTime()) return { kind: 'invalid' };
  return { kind: 'valid', auth: { keyId: entry.keyId, companyId: entry.ownerCompanyId, permissions: entry.permissions } };
};
