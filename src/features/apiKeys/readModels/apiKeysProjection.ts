import type { Projection } from '../../../application/ports/ReadModelStore.js';
import type { ApiKeyRecord } from '../application/apiKeyQueries.js';
import { decodeApiKeyEvent } from './decodeApiKeyEvent.js';
import { erasedWithCompany } from '../../companies/index.js';

/**
 * A company's API key as listings show it: the hint, never the key or its hash.
 * Its fields are those the application's queries read (`ApiKeyRecord`).
 */
export type ApiKeyDoc = ApiKeyRecord;

/** `api_keys`: one document per key, under its company, in creation order. */
export const apiKeysProjection: Projection<ApiKeyDoc> = erasedWithCompany({
  name: 'api_keys',
  eventTypes: new Set(['ApiKeyIssued', 'ApiKeyRevoked']),
  indexes: [],
  targets(event) {
    const { data } = decodeApiKeyEvent(event);
    return [{ kind: 'id', companyId: data.companyId, id: data.keyId }];
  },
  evolve(doc, recorded) {
    const event = decodeApiKeyEvent(recorded);
    switch (event.type) {
      case 'ApiKeyIssued': {
        if (doc) return doc;
        const d = event.data;
        return {
          id: d.keyId,
          companyId: d.companyId,
          name: d.name,
          type: d.type,
          permissions: d.permissions,
          expiresAt: d.expiresAt,
          revokedAt: null,
          keyHint: d.keyHint,
          createdAt: d.createdAt,
          position: recorded.position,
        };
      }
      case 'ApiKeyRevoked':
        return doc ? { ...doc, revokedAt: event.data.revokedAt, position: recorded.position } : null;
      default:
        return doc;
    }
  },
});

/** A listed key's name: null for none, and for documents projected before keys had names. */
export const apiKeyNameOf = (doc: ApiKeyDoc): string | null => doc.name ?? null;
