import { apiKeyDecider } from '../../../src/features/apiKeys/domain/apiKeyDecider.js';
import type { IssueApiKey } from '../../../src/features/apiKeys/domain/apiKeyCommands.js';
import type { ApiKeyEvent } from '../../../src/features/apiKeys/domain/apiKeyEvents.js';
import type { ApiKeyName } from '../../../src/features/apiKeys/domain/ApiKeyName.js';
import { hashApiKey, keyHint } from '../../../src/shared/apiKeyFormat.js';
import { EVERY_PERMISSION, SPECIFICATION_PERMISSIONS } from '../../../src/shared/permissions.js';
import { specFor } from '../../support/givenWhenThen.js';

const spec = specFor(apiKeyDecider);
const at = new Date('2026-03-01T10:00:00.000Z');
const later = new Date('2026-03-02T10:00:00.000Z');
const KEY = 'chr_0123456789abcdefghijABCDEFGHIJ000000';

const issue: IssueApiKey = {
  type: 'IssueApiKey',
  keyId: 'k-1',
  companyId: 'co-1',
  name: 'Zapier production' as ApiKeyName,
  keyType: 'zapier',
  permissions: ['deals:read', 'contacts:read', 'deals:read'],
  expiresAt: new Date('2027-01-01T00:00:00.000Z'),
  keyHash: hashApiKey(KEY),
  keyHint: keyHint(KEY),
  at,
};
const issued: ApiKeyEvent = {
  type: 'ApiKeyIssued',
  data: {
    keyId: 'k-1',
    companyId: 'co-1',
    name: 'Zapier production',
    type: 'zapier',
    permissions: ['contacts:read', 'deals:read'],
    expiresAt: '2027-01-01T00:00:00.000Z',
    keyHash: hashApiKey(KEY),
    keyHint: 'chr_...0000',
    createdAt: '2026-03-01T10:00:00.000Z',
  },
};
const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { keyId: 'k-1', companyId: 'co-1', revokedAt: '2026-03-02T10:00:00.000Z' } };
const revoke = { type: 'RevokeApiKey', keyId: 'k-1', at: later } as const;

describe('API key decider', () => {
  describe('given no key', () => {
    it('issues it with its hash and hint (never the key), permissions once each in the spec order', () =>
      spec.given().when(issue).then(issued));
    it('issues a key that never expires', () =>
      spec
        .given()
        .when({ ...issue, expiresAt: null, permissions: SPECIFICATION_PERMISSIONS })
        .then({ type: 'ApiKeyIssued', data: { ...issued.data, expiresAt: null, permissions: [...SPECIFICATION_PERMISSIONS] } } as ApiKeyEvent));
    it('issues a key with contacts:erase alone: it is kept, not dropped', () =>
      spec
        .given()
        .when({ ...issue, permissions: ['contacts:erase'] })
        .then({ type: 'ApiKeyIssued', data: { ...issued.data, permissions: ['contacts:erase'] } } as ApiKeyEvent));
    it('keeps contacts:erase with others, once, after the specification\'s seven', () => {
      spec
        .given()
        .when({ ...issue, permissions: ['contacts:erase', 'webhooks:write', 'contacts:read', 'contacts:erase'] })
        .then({ type: 'ApiKeyIssued', data: { ...issued.data, permissions: ['contacts:read', 'webhooks:write', 'contacts:erase'] } } as ApiKeyEvent);
      spec
        .given()
        .when({ ...issue, permissions: [...EVERY_PERMISSION].reverse() })
        .then({ type: 'ApiKeyIssued', data: { ...issued.data, permissions: [...SPECIFICATION_PERMISSIONS, 'contacts:erase'] } } as ApiKeyEvent);
    });
    it('refuses a key without permissions', () => spec.given().when({ ...issue, permissions: [] }).thenError({ kind: 'NoPermissions' }));
    it('refuses an expiry that is not in the future', () =>
      spec.given().when({ ...issue, expiresAt: at }).thenError({ kind: 'ExpiryNotInFuture', expiresAt: '2026-03-01T10:00:00.000Z' }));
    it('cannot revoke it', () => spec.given().when(revoke).thenError({ kind: 'ApiKeyNotFound', keyId: 'k-1' }));
  });

  describe('given an issued key', () => {
    it('revokes it', () => spec.given(issued).when(revoke).then(revoked));
    it('refuses to issue it again', () => spec.given(issued).when(issue).thenError({ kind: 'ApiKeyAlreadyIssued', keyId: 'k-1' }));
  });

  describe('given a revoked key', () => {
    it('refuses to revoke it again', () =>
      spec
        .given(issued, revoked)
        .when({ ...revoke, at: new Date('2026-03-03T00:00:00.000Z') })
        .thenError({ kind: 'ApiKeyAlreadyRevoked', keyId: 'k-1', revokedAt: '2026-03-02T10:00:00.000Z' }));
  });
});
