import * as t from 'io-ts';
import { ApiKeyType } from '../../../shared/permissions.js';
import type { ApiKeyIssued } from './apiKeyEvents.js';

/*
 * Earlier versions of the API key's stored events, and the upcasters that read
 * them as the current version. A released version's codec never changes: a new
 * shape is a new version (see docs/contributors/changing-an-event.md).
 *
 *   ApiKeyIssued  v1: no name (releases up to 9d3d34c)
 *                 v2: v1 + `name`, the key's label or null (releases up to bf089fc)
 *                 v3 (current): v2, but `permissions` may hold `contacts:erase`
 *   ApiKeyRevoked v1 (current)
 */

/** A permission as versions 1 and 2 hold it: one of the seven of the specification. */
const PermissionV2 = t.keyof({
  'contacts:read': null,
  'contacts:write': null,
  'deals:read': null,
  'deals:write': null,
  'agents:read': null,
  'webhooks:read': null,
  'webhooks:write': null,
});

/** `ApiKeyIssued` version 1: a key without a name. */
export const ApiKeyIssuedV1 = t.type({
  type: t.literal('ApiKeyIssued'),
  data: t.type({
    keyId: t.string,
    companyId: t.string,
    type: ApiKeyType,
    permissions: t.array(PermissionV2),
    expiresAt: t.union([t.string, t.null]),
    keyHash: t.string,
    keyHint: t.string,
    createdAt: t.string,
  }),
});
export type ApiKeyIssuedV1 = t.TypeOf<typeof ApiKeyIssuedV1>;

/** `ApiKeyIssued` version 2: with its name; its permissions the seven of the specification only. */
export const ApiKeyIssuedV2 = t.type({
  type: t.literal('ApiKeyIssued'),
  data: t.type({
    keyId: t.string,
    companyId: t.string,
    name: t.union([t.string, t.null]),
    type: ApiKeyType,
    permissions: t.array(PermissionV2),
    expiresAt: t.union([t.string, t.null]),
    keyHash: t.string,
    keyHint: t.string,
    createdAt: t.string,
  }),
});
export type ApiKeyIssuedV2 = t.TypeOf<typeof ApiKeyIssuedV2>;

/**
 * `ApiKeyIssued` v1 → v2: `name: null`. A key of version 1 was issued without a
 * name, and none is made up for it: a derived label (its type and hint) would be
 * shown as if someone had chosen it, and would change whenever the rule did.
 * Listings show the hint beside every key, named or not.
 */
export const upcastApiKeyIssuedV1 = (event: ApiKeyIssuedV1): ApiKeyIssuedV2 => ({
  type: 'ApiKeyIssued',
  data: { ...event.data, name: null },
});

/**
 * `ApiKeyIssued` v2 → v3: the identity. Version 3 differs only in what its
 * `permissions` may name (`contacts:erase` as well), so every key of version 2
 * is one version 3 holds as it is; the new version is there so that a release
 * before it stops at a permission it does not know instead of misreading it.
 */
export const upcastApiKeyIssuedV2 = (event: ApiKeyIssuedV2): ApiKeyIssued => event;
