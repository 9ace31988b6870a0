import type { ApiKeyHash, ApiKeyHint } from '../../../shared/apiKeyFormat.js';
import type { ApiKeyType, Permission } from '../../../shared/permissions.js';
import type { ApiKeyName } from './ApiKeyName.js';

/**
 * Issue a key whose secret the caller generated. The command carries only the
 * key's hash and hint (branded types that only `hashApiKey` / `keyHint` make), so
 * the key cannot reach an event. The caller has checked that the company exists.
 */
export interface IssueApiKey {
  readonly type: 'IssueApiKey';
  readonly keyId: string;
  readonly companyId: string;
  /** null: no name given. */
  readonly name: ApiKeyName | null;
  readonly keyType: ApiKeyType;
  readonly permissions: readonly Permission[];
  /** null: never expires. */
  readonly expiresAt: Date | null;
  readonly keyHash: ApiKeyHash;
  readonly keyHint: ApiKeyHint;
  readonly at: Date;
}

export interface RevokeApiKey {
  readonly type: 'RevokeApiKey';
  readonly keyId: string;
  readonly at: Date;
}

export type ApiKeyCommand = IssueApiKey | RevokeApiKey;
