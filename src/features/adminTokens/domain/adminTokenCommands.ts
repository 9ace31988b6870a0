import type { AdminTokenHash, AdminTokenHint } from '../../../shared/adminTokenFormat.js';
import type { AdminTokenName } from './AdminTokenName.js';

/**
 * Issue a token whose secret the caller generated. The command carries only the
 * token's hash and hint (branded types that only `hashAdminToken` /
 * `adminTokenHint` make), so the token cannot reach an event.
 */
export interface IssueAdminToken {
  readonly type: 'IssueAdminToken';
  readonly tokenId: string;
  readonly name: AdminTokenName;
  readonly tokenHash: AdminTokenHash;
  readonly tokenHint: AdminTokenHint;
  readonly at: Date;
}

export interface RevokeAdminToken {
  readonly type: 'RevokeAdminToken';
  readonly tokenId: string;
  readonly at: Date;
}

export type AdminTokenCommand = IssueAdminToken | RevokeAdminToken;
