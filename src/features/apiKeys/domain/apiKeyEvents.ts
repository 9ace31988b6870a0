import * as t from 'io-ts';
import { ApiKeyType, Permission } from '../../../shared/permissions.js';

/**
 * A key was issued (version 3: its `permissions` may name `contacts:erase`;
 * version 2 added its `name`). Holds the SHA-256 of the key and a hint, never the
 * key: the key is shown once to whoever created it and exists nowhere else.
 * Versions 1 and 2 are in apiKeyEventVersions.ts.
 */
export const ApiKeyIssued = t.type({
  type: t.literal('ApiKeyIssued'),
  data: t.type({
    keyId: t.string,
    companyId: t.string,
    /** The key's label; null: issued without one (every key of version 1). */
    name: t.union([t.string, t.null]),
    type: ApiKeyType,
    /** Each once, in the order of EVERY_PERMISSION. */
    permissions: t.array(Permission),
    /** ISO 8601 UTC; null: never expires. */
    expiresAt: t.union([t.string, t.null]),
    keyHash: t.string,
    keyHint: t.string,
    createdAt: t.string,
  }),
});
export type ApiKeyIssued = t.TypeOf<typeof ApiKeyIssued>;

export const ApiKeyRevoked = t.type({
  type: t.literal('ApiKeyRevoked'),
  data: t.type({ keyId: t.string, companyId: t.string, revokedAt: t.string }),
});
export type ApiKeyRevoked = t.TypeOf<typeof ApiKeyRevoked>;

/** Every event of an `apikey-<id>` stream. */
export const ApiKeyEvent = t.union([ApiKeyIssued, ApiKeyRevoked]);
export type ApiKeyEvent = t.TypeOf<typeof ApiKeyEvent>;

export const apiKeyStream = (keyId: string): string => `apikey-${keyId}`;
