import type { Middleware } from 'koa';
import type { AdminAuthContext } from '../../application/callers/AdminAuthContext.js';
import type { FailedCredentials } from '../../application/credentials/FailedCredentials.js';
import { isWellFormedApiKey } from '../../shared/apiKeyFormat.js';
import type { Clock } from '../../shared/Clock.js';
import { authenticateBearer, type BearerCredential, type BearerVerification } from './authenticate.js';

/** Checks a presented admin token (format first, then the hash against the admin tokens' read model). */
export type VerifyAdminToken = (presented: string, now: Date) => Promise<BearerVerification<AdminAuthContext>>;

/**
 * The admin API's admin tokens, refused with 401s in the spec's error body: no
 * header; a malformed token, or a customer's API key (said so in the message);
 * an unknown or revoked one. The caller goes to `ctx.state.admin`.
 */
export const adminTokenCredential = (verify: VerifyAdminToken): BearerCredential<AdminAuthContext> => ({
  noun: 'admin token',
  kind: 'admin_token',
  verify,
  refusals: {
    missing: ['Admin token required in Authorization header', 'Send your admin token as "Authorization: Bearer <ADMIN_TOKEN>".'],
    malformed: ['Invalid admin token format', 'The Authorization header must be "Bearer <ADMIN_TOKEN>" with a well-formed admin token (chradm_…).'],
    invalid: ['Invalid admin token', 'The admin token is unknown or revoked.'],
  },
  otherKind: (presented) =>
    isWellFormedApiKey(presented)
      ? 'This is a customer API key (chr_…): the admin API takes an admin token (chradm_…), made with `npm run chronicle -- admin-tokens create`.'
      : null,
  assign: (state, auth) => {
    state.admin = auth;
  },
});

/** `authenticateBearer` for the admin API: sets `ctx.state.admin`. */
export const authenticateAdmin = (verify: VerifyAdminToken, clock: Clock, failures?: FailedCredentials): Middleware =>
  authenticateBearer(adminTokenCredential(verify), clock, failures);
