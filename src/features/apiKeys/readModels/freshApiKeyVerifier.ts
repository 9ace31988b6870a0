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
import { PLATFORM_SCOPE, isSuspendedDoc, loadCompany, type CompanyDoc } from '../../companies/index.js';

export { KEY_REUSE_MS, REVOCATION_BOUND_MS } from '../../../application/credentials/freshCredentialVerifier.js';

export type FreshApiKeyVerification = FreshCredentialVerification<AuthContext>;

export interface FreshApiKeyVerifierDeps extends Omit<FreshCredentialVerifierDeps, 'eventStore'> {
  readonly directory: DocumentCollection<ApiKeyDirectoryDoc>;
  /** The companies' read model: whether a key's company is suspended. */
  readonly companies: DocumentCollection<CompanyDoc>;
  /** The log: its head (how far the read models must be to know every key), a key's own stream and its company's. */
  readonly eventStore: Pick<EventStore, 'headPosition' | 'readStream'>;
}

/**
 * API keys as a credential: `chr_` keys, looked up in `api_key_directory` (an
 * active one's company then in `companies`: suspended or not), checked in their
 * `apikey-<id>` streams and their company's `company-<id>`.
 */
const apiKeyLookup = (deps: Pick<FreshApiKeyVerifierDeps, 'directory' | 'companies' | 'eventStore'>): CredentialLookup<AuthContext> => ({
  isWellFormed: isWellFormedApiKey,
  hash: hashApiKey,
  lookUp: async (hash, now) => {
    const found = await lookUpApiKey(deps.directory, hash as ApiKeyHash, now);
    if (found.verification.kind !== 'valid') return found;
    const company = await deps.companies.get(PLATFORM_SCOPE, found.verification.auth.companyId);
    return company !== null && isSuspendedDoc(company) ? { ...found, verification: { kind: 'suspended', auth: found.verification.auth } } : found;
  },
  activeInLog: async (auth) => {
    const { state } = await loadAggregate(deps.eventStore, apiKeyStream(auth.keyId), { eventCodec: ApiKeyEvent, decider: apiKeyDecider });
    return state.status === 'active';
  },
  suspendedInLog: async (auth) => ((await loadCompany(deps.eventStore, auth.companyId))?.suspension ?? null) !== null,
});

/**
 * API keys answered as the log has them, within bounds (`freshCredentialVerifier`):
 * a key issued a moment ago by another process is accepted at once, one revoked,
 * or whose company was suspended, is refused within `REVOCATION_BOUND_MS`.
 */
export const freshApiKeyVerifier = (deps: FreshApiKeyVerifierDeps): ((presented: string, now: Date) => Promise<FreshApiKeyVerification>) =>
  freshCredentialVerifier(apiKeyLookup(deps), deps);
