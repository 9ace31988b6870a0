import type { AuthContext } from '../../../application/callers/AuthContext.js';
import { API_KEY_DIRECTORY, type ApiKeyDirectoryDoc } from './apiKeyDirectoryProjection.js';
import { hashApiKey, isWellFormedApiKey, type ApiKeyHash } from '../../../shared/apiKeyFormat.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { CredentialVerification } from '../../../application/credentials/freshCredentialVerifier.js';

export type ApiKeyVerification = CredentialVerification<AuthContext>;

/**
 * Checks a presented key. The key is hashed and looked up by its hash: keys are
 * never stored or compared, only hashes (a timing difference in the lookup could
 * tell at most something about a hash, which says nothing about any key).
 * The answer is the read model's: `freshApiKeyVerifier` adds what the read
 * model has not applied yet.
 */
export const verifyApiKey = async (
  directory: DocumentCollection<ApiKeyDirectoryDoc>,
  presented: string,
  now: Date,
): Promise<ApiKeyVerification> => {
  if (!isWellFormedApiKey(presented)) return { kind: 'malformed' };
  return (await lookUpApiKey(directory, hashApiKey(presented), now)).verification;
};

/**
 * `verifyApiKey` for a well-formed key already hashed, with the key's expiry
 * (epoch ms; null for none, or when no active key was found).
 */
export const lookUpApiKey = async (
  directory: DocumentCollection<ApiKeyDirectoryDoc>,
  hash: ApiKeyHash,
  now: Date,
): Promise<{ readonly verification: ApiKeyVerification; readonly expiresAt: number | null }> => {
  const entry = await directory.get(API_KEY_DIRECTORY, hash);
  if (!entry) return { verification: { kind: 'invalid', reason: 'unknown' }, expiresAt: null };
  if (entry.revoked) return { verification: { kind: 'invalid', reason: 'revoked' }, expiresAt: null };
  const expiresAt = entry.expiresAt === null ? null : Date.parse(entry.expiresAt);
  if (expiresAt !== null && expiresAt <= now.getTime()) return { verification: { kind: 'invalid', reason: 'expired' }, expiresAt: null };
  return { verification: { kind: 'valid', auth: { keyId: entry.keyId, companyId: entry.ownerCompanyId, permissions: entry.permissions } }, expiresAt };
};
