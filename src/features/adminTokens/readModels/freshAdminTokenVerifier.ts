import type { AdminAuthContext } from '../../../application/callers/AdminAuthContext.js';
import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import type { EventStore } from '../../../application/ports/EventStore.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import { adminTokenDecider } from '../domain/adminTokenDecider.js';
import { AdminTokenEvent, adminTokenStream } from '../domain/adminTokenEvents.js';
import { hashAdminToken, isWellFormedAdminToken } from '../../../shared/adminTokenFormat.js';
import { PLATFORM_SCOPE } from '../../companies/index.js';
import {
  freshCredentialVerifier,
  type CredentialLookup,
  type CredentialVerification,
  type FreshCredentialVerification,
  type FreshCredentialVerifierDeps,
} from '../../../application/credentials/freshCredentialVerifier.js';
import type { AdminTokenDoc } from './adminTokensProjection.js';

export type FreshAdminTokenVerification = FreshCredentialVerification<AdminAuthContext>;

export interface FreshAdminTokenVerifierDeps extends Omit<FreshCredentialVerifierDeps, 'eventStore'> {
  readonly tokens: DocumentCollection<AdminTokenDoc>;
  /** The log: its head (how far the read models must be to know every token), and a token's own stream. */
  readonly eventStore: Pick<EventStore, 'headPosition' | 'readStream'>;
}

/** The `admin_tokens` read model's answer for a token's hash (admin tokens never expire: they are revoked). */
export const lookUpAdminToken = async (
  tokens: DocumentCollection<AdminTokenDoc>,
  hash: string,
): Promise<{ readonly verification: CredentialVerification<AdminAuthContext>; readonly expiresAt: null }> => {
  const doc = await tokens.get(PLATFORM_SCOPE, hash);
  if (!doc) return { verification: { kind: 'invalid', reason: 'unknown' }, expiresAt: null };
  if (doc.revokedAt !== null) return { verification: { kind: 'invalid', reason: 'revoked' }, expiresAt: null };
  return { verification: { kind: 'valid', auth: { tokenId: doc.tokenId, name: doc.name } }, expiresAt: null };
};

/** Admin tokens as a credential: `chradm_` tokens, looked up in `admin_tokens`, checked in their `admintoken-<id>` streams. */
const adminTokenLookup = (deps: Pick<FreshAdminTokenVerifierDeps, 'tokens' | 'eventStore'>): CredentialLookup<AdminAuthContext> => ({
  isWellFormed: isWellFormedAdminToken,
  hash: hashAdminToken,
  lookUp: (hash) => lookUpAdminToken(deps.tokens, hash),
  activeInLog: async (auth) => {
    const { state } = await loadAggregate(deps.eventStore, adminTokenStream(auth.tokenId), { eventCodec: AdminTokenEvent, decider: adminTokenDecider });
    return state.status === 'active';
  },
});

/**
 * Admin tokens answered as the log has them, within the same bounds as API keys
 * (`freshCredentialVerifier`): a token issued a moment ago by `chronicle
 * admin-tokens create` (another process) is accepted at once, one revoked by
 * `chronicle admin-tokens revoke` is refused within `REVOCATION_BOUND_MS`.
 */
export const freshAdminTokenVerifier = (deps: FreshAdminTokenVerifierDeps): ((presented: string, now: Date) => Promise<FreshAdminTokenVerification>) =>
  freshCredentialVerifier(adminTokenLookup(deps), deps);
