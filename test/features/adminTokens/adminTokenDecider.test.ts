import { adminTokenDecider } from '../../../src/features/adminTokens/domain/adminTokenDecider.js';
import type { IssueAdminToken } from '../../../src/features/adminTokens/domain/adminTokenCommands.js';
import type { AdminTokenEvent } from '../../../src/features/adminTokens/domain/adminTokenEvents.js';
import type { AdminTokenName } from '../../../src/features/adminTokens/domain/AdminTokenName.js';
import { adminTokenHint, hashAdminToken } from '../../../src/shared/adminTokenFormat.js';
import { specFor } from '../../support/givenWhenThen.js';

const spec = specFor(adminTokenDecider);
const TOKEN = 'chradm_0123456789abcdefghijABCDEFGHIJ000000';

const issue: IssueAdminToken = {
  type: 'IssueAdminToken',
  tokenId: 't-1',
  name: 'billing backend' as AdminTokenName,
  tokenHash: hashAdminToken(TOKEN),
  tokenHint: adminTokenHint(TOKEN),
  at: new Date('2026-03-01T10:00:00.000Z'),
};
const issued: AdminTokenEvent = {
  type: 'AdminTokenIssued',
  data: { tokenId: 't-1', name: 'billing backend', tokenHash: hashAdminToken(TOKEN), tokenHint: 'chradm_...0000', createdAt: '2026-03-01T10:00:00.000Z' },
};
const revoke = { type: 'RevokeAdminToken', tokenId: 't-1', at: new Date('2026-03-02T10:00:00.000Z') } as const;
const revoked: AdminTokenEvent = { type: 'AdminTokenRevoked', data: { tokenId: 't-1', revokedAt: '2026-03-02T10:00:00.000Z' } };

describe('Admin token decider', () => {
  describe('given no token', () => {
    it('issues it with its name, hash and hint (never the token)', () => spec.given().when(issue).then(issued));
    it('cannot revoke it', () => spec.given().when(revoke).thenError({ kind: 'AdminTokenNotFound', tokenId: 't-1' }));
  });

  describe('given an issued token', () => {
    it('revokes it', () => spec.given(issued).when(revoke).then(revoked));
    it('refuses to issue it again', () => spec.given(issued).when(issue).thenError({ kind: 'AdminTokenAlreadyIssued', tokenId: 't-1' }));
  });

  describe('given a revoked token', () => {
    it('refuses to revoke it again', () =>
      spec
        .given(issued, revoked)
        .when({ ...revoke, at: new Date('2026-03-03T00:00:00.000Z') })
        .thenError({ kind: 'AdminTokenAlreadyRevoked', tokenId: 't-1', revokedAt: '2026-03-02T10:00:00.000Z' }));
  });
});
