import type { Projection, ReadModelDocument } from '../../../application/ports/ReadModelStore.js';
import { cachedDecoder } from '../../../application/versioning/decodeStoredEvent.js';
import { AdminTokenEvent } from '../domain/adminTokenEvents.js';
import { PLATFORM_SCOPE } from '../../companies/index.js';

/** An admin token as the platform's operators list it: its id, name and hint, never the token. */
export interface AdminToken {
  readonly id: string;
  readonly name: string;
  readonly tokenHint: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

/**
 * One admin token, found by its hash (the document's id) when it is presented,
 * and listed with the others: every document lives under the platform's
 * partition (admin tokens belong to no company).
 */
export interface AdminTokenDoc extends ReadModelDocument {
  /** The SHA-256 of the token (hex); `companyId` is always `PLATFORM_SCOPE`. */
  readonly id: string;
  readonly tokenId: string;
  readonly name: string;
  readonly tokenHint: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

const decode = cachedDecoder(AdminTokenEvent);

/** `admin_tokens`: token hash → id, name, hint, creation and revocation; in creation order. */
export const adminTokensProjection: Projection<AdminTokenDoc> = {
  name: 'admin_tokens',
  eventTypes: new Set(['AdminTokenIssued', 'AdminTokenRevoked']),
  // A revocation names the token id, not the hash: found with a where-target on tokenId.
  indexes: [['tokenId']],
  targets(recorded) {
    const event = decode(recorded);
    switch (event.type) {
      case 'AdminTokenIssued':
        return [{ kind: 'id', companyId: PLATFORM_SCOPE, id: event.data.tokenHash }];
      case 'AdminTokenRevoked':
        return [{ kind: 'where', companyId: PLATFORM_SCOPE, field: 'tokenId', value: event.data.tokenId }];
      default:
        return [];
    }
  },
  evolve(doc, recorded) {
    const event = decode(recorded);
    switch (event.type) {
      case 'AdminTokenIssued': {
        if (doc) return doc;
        const d = event.data;
        return {
          id: d.tokenHash,
          companyId: PLATFORM_SCOPE,
          tokenId: d.tokenId,
          name: d.name,
          tokenHint: d.tokenHint,
          createdAt: d.createdAt,
          revokedAt: null,
          position: recorded.position,
        };
      }
      case 'AdminTokenRevoked':
        return doc ? { ...doc, revokedAt: event.data.revokedAt, position: recorded.position } : null;
      default:
        return doc;
    }
  },
};

/** A token as listings show it (never its hash). */
export const adminTokenOf = (doc: AdminTokenDoc): AdminToken => ({
  id: doc.tokenId,
  name: doc.name,
  tokenHint: doc.tokenHint,
  createdAt: doc.createdAt,
  revokedAt: doc.revokedAt,
});
