import * as t from 'io-ts';
import { ApiKeyType, Permission } from '../../../shared/permissions.js';
import type { ApiKeyIssued } from './apiKeyEvents.js';

/*
 * Earlier versions of the API key's stored events, and the upcasters that read
 * them as the current version. A released version's codec never changes: a new
 * shape is a new version (see docs/contributors/changing-an-event.md).
 *
 *   ApiKeyIssued  v1: no name (releases up to 9d3d34c)
 *                 v2 (current): v1 + `name`, the key's label or null
 *   ApiKeyRevoked v1 (current)
 */

/** `ApiKeyIssued` version 1: a key without a name. */
export const ApiKeyIssuedV1 = t.type({
  type: t.literal('ApiKeyIssued'),
  data: t.type({
    keyId: t.string,
    companyId: t.string,
    type: ApiKeyType,
    permissions: t.array(Permission),
    expiresAt: t.union([t.string, t.null]),
    keyHash: t.string,
    keyHint: t.string,
    createdAt: t.string,
  }),
});
export type ApiKeyIssuedV1 = t.TypeOf<typeof ApiKeyIssuedV1>;

/**
 * `ApiKeyIssued` v1 → v2: `name: null`. A key of version 1 was issued without a
 * name, and none is made up for it: a derived label (its type and hint) would be
 * shown as if someone had chosen it, and would change whenever the rule did.
 * Listings show the hint beside every key, named or not.
 */
export const upcastApiKeyIssuedV1 = (event: ApiKeyIssuedV1): ApiKeyIssued => ({
  type: 'ApiKeyIssued',
  data: { ...event.data, name: null },
});
