import { loadAggregate } from '../../../application/commands/loadAggregate.js';
import type { AuthContext } from '../../../application/callers/AuthContext.js';
import type { EventStore } from '../../../application/ports/EventStore.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import { apiKeyDecider } from '../domain/apiKeyDecider.js';
import { ApiKeyEvent, apiKeyStream } from '../domain/apiKeyEvents.js';
import { hashApiKey, isWellFormedApiKey, type ApiKeyHash } from '../../../shared/apiKeyFormat.js';
import {
  freshCredentialVerifier,
  type CredentialLookup,
  type FreshCredentialVerification,
  type FreshCredentialVerifierDeps,
} from '../../../application/credentials/freshCredentialVerifier.js';
import type { ApiKeyDirectoryDoc } from './apiKeyDirectoryProjection.js';
import { lookUpApiKey } from './verifyApiKey.js';

export { KEY_REUSE_MS, REVOCATION_BOUND_MS } from '../../../application/credentials/freshCredentialVerifier.js';

export type FreshApiKeyVerification = FreshCredentialVerification<AuthContext>;

export interface FreshApiKeyVerifierDeps extends Omit<FreshCredentialVerifierDeps, 'eventStore'> {
  readonly directory: DocumentCollection<ApiKeyDirectoryDoc>;
  /** The log: its head (how far the read models must be to know every key), and a key's own stream. */
  readonly eventStore: Pick<EventStore, 'headPosition' | 'readStream'>;
}

/** API keys as a credential: `chr_` keys, looked up in `api_key_directory`, checked in their `apikey-<id>` streams. */
const apiKeyLookup = (deps: Pick<FreshApiKeyVerifierDeps, 'directory' | 'eventStore'>): CredentialLookup<AuthContext> => ({
  isWellFormed: isWellFormedApiKey,
  hash: hashApiKey,
  lookUp: (hash, now) => lookUpApiKey(deps.directory, hash as ApiKeyHash, now),
  activeInLog: async (auth) => {
    const { state } = await loadAggregate(deps.eventStore, apiKeyStream(auth.keyId), { eventCodec: ApiKeyEvent, decider: apiKeyDecider });
    return state.status === 'active';
  },
});

/**
 * API keys answered as the log has them, within bounds (`freshCredentialVerifier`):
 * a key issued a moment ago by another process is accepted at once, one revoked
 * is refused within `REVOCATION_BOUND_MS`.
 */
export const freshApiKeyVerifier = (deps: FreshApiKeyVerifierDeps): ((presented: string, now: Date) => Promise<FreshApiKeyVerification>) =>
  freshCredentialVerifier(apiKeyLookup(deps), deps);
