import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import type { Permission } from '../../../shared/permissions.js';
import { decodeApiKeyEvent } from './decodeApiKeyEvent.js';

/**
 * The directory is one global lookup by key hash, but read-model documents are
 * scoped by company: every directory document lives under this constant company id.
 */
export const API_KEY_DIRECTORY = '_directory';

/** What authentication needs to know about a presented key, found by its hash. */
export interface ApiKeyDirectoryDoc extends ReadModelDocument {
  /** The SHA-256 of the key (hex); `companyId` is always `API_KEY_DIRECTORY`. */
  readonly id: string;
  readonly keyId: string;
  readonly ownerCompanyId: string;
  readonly permissions: readonly Permission[];
  readonly expiresAt: string | null;
  readonly revoked: boolean;
}

/** `api_key_directory`: key hash → key id, owner, permissions, expiry, revocation. */
export const apiKeyDirectoryProjection: Projection<ApiKeyDirectoryDoc> = {
  name: 'api_key_directory',
  eventTypes: new Set(['ApiKeyIssued', 'ApiKeyRevoked']),
  // A revocation names the key id, not the hash: found with a where-target on keyId.
  indexes: [['keyId']],
  targets(recorded) {
    const event = decodeApiKeyEvent(recorded);
    switch (event.type) {
      case 'ApiKeyIssued':
        return [{ kind: 'id', companyId: API_KEY_DIRECTORY, id: event.data.keyHash }];
      case 'ApiKeyRevoked':
        return [{ kind: 'where', companyId: API_KEY_DIRECTORY, field: 'keyId', value: event.data.keyId }];
      default:
        return [];
    }
  },
  evolve(doc, recorded) {
    const event = decodeApiKeyEvent(recorded);
    switch (event.type) {
      case 'ApiKeyIssued': {
        if (doc) return doc;
        const d = event.data;
        return {
          id: d.keyHash,
          companyId: API_KEY_DIRECTORY,
          keyId: d.keyId,
          ownerCompanyId: d.companyId,
          permissions: d.permissions,
          expiresAt: d.expiresAt,
          revoked: false,
          position: recorded.position,
        };
      }
      case 'ApiKeyRevoked':
        return doc ? { ...doc, revoked: true, position: recorded.position } : null;
      default:
        return doc;
    }
  },
};
