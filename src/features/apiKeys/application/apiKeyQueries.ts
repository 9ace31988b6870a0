import type { DocumentCollection, ReadModelDocument, ReadModelStore } from '../../../application/ports/ReadModelStore.js';
import type { ApiKeyType, Permission } from '../../../shared/permissions.js';
import { allDocuments } from '../../../application/queries/allDocuments.js';

/**
 * A key as the `api_keys` read model keeps it (its `ApiKeyDoc`). The read model is
 * handed over by the feature's index.ts (`apiKeyQueriesOf`): application/ never
 * imports readModels/, which import this.
 */
export interface ApiKeyRecord extends ReadModelDocument {
  /** The key's label; null: none. Absent from documents projected before keys had names: read as null (decision 0402). */
  readonly name?: string | null;
  readonly type: ApiKeyType;
  readonly permissions: readonly Permission[];
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly keyHint: string;
  readonly createdAt: string;
}

/** Whether a key works now: active, revoked, or expired. */
export type KeyState = 'active' | 'revoked' | 'expired';

/** A company's API key as pages show it: its hint, never the key or its hash. */
export interface ApiKeyView {
  readonly id: string;
  /** Its name when it has one, else its hint (`chr_...abcd`). */
  readonly label: string;
  readonly type: ApiKeyType;
  readonly permissions: readonly Permission[];
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly keyHint: string;
}

/** How a key is named on a page: its name when it has one, else its hint (`chr_...abcd`). */
export const keyLabel = (key: Pick<ApiKeyRecord, 'name' | 'keyHint'>): string => key.name ?? key.keyHint;

/** Whether a key works now: active, revoked, or expired. */
export const keyState = (key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: Date): KeyState => {
  if (key.revokedAt !== null) return 'revoked';
  return key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime() ? 'expired' : 'active';
};

const viewOf = (key: ApiKeyRecord): ApiKeyView => ({
  id: key.id,
  label: keyLabel(key),
  type: key.type,
  permissions: key.permissions,
  createdAt: key.createdAt,
  expiresAt: key.expiresAt,
  revokedAt: key.revokedAt,
  keyHint: key.keyHint,
});

/** What pages read of a company's keys. */
export interface ApiKeyQueries {
  /** Every key of the company (revoked and expired ones too), newest first. */
  readonly keysOf: (companyId: string) => Promise<ApiKeyView[]>;
  /** The company's keys that work at `now` (see `keyState`), newest first. */
  readonly activeKeysOf: (companyId: string, now: Date) => Promise<ApiKeyView[]>;
  /** One key of the company; null when it has none with this id (another company's key is as unknown). */
  readonly keyOf: (companyId: string, keyId: string) => Promise<ApiKeyView | null>;
  /** The labels of the company's keys among `keyIds`, by id (another company's keys, and unknown ids, are left out). */
  readonly keyLabelsOf: (companyId: string, keyIds: readonly string[]) => Promise<Map<string, string>>;
}

/** The queries over the read models, as the feature's index.ts binds them (`apiKeyQueriesOf`). */
export type ApiKeyQueriesOf = (readModels: Pick<ReadModelStore, 'collection'>) => ApiKeyQueries;

/** The queries of a company's keys over the `api_keys` collection. */
export const apiKeyQueries = <D extends ApiKeyRecord>(keys: DocumentCollection<D>): ApiKeyQueries => {
  const keysOf = async (companyId: string) => (await allDocuments(keys, companyId)).map(viewOf);
  return {
    keysOf,
    activeKeysOf: async (companyId, now) => (await keysOf(companyId)).filter((key) => keyState(key, now) === 'active'),
    keyOf: async (companyId, keyId) => {
      const key = await keys.get(companyId, keyId);
      return key ? viewOf(key) : null;
    },
    keyLabelsOf: async (companyId, keyIds) => {
      const found = await Promise.all([...new Set(keyIds)].map((id) => keys.get(companyId, id)));
      return new Map(found.flatMap((key) => (key ? [[key.id, keyLabel(key)] as const] : [])));
    },
  };
};
