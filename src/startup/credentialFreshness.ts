import { measureLag } from '../application/subscriptions/ProjectionRunner.js';
import { systemClock, type Clock } from '../shared/Clock.js';
import type { FreshCredentialVerifierDeps } from '../application/credentials/freshCredentialVerifier.js';
import type { Config } from '../config.js';
import type { ReadSide } from './readSide.js';
import type { Stores } from './Stores.js';

/**
 * What a credential's verifier (API keys, admin tokens) needs to answer as the
 * log has it: the log, how far this process's read models have applied it, and
 * how long an unknown credential waits for them (READ_YOUR_WRITES_TIMEOUT_MS).
 */
export const credentialFreshness = (
  parts: { readonly config: Config; readonly stores: Stores; readonly readSide: ReadSide; readonly clock?: Clock },
  progress: NonNullable<ReadSide['progress']>,
): Omit<FreshCredentialVerifierDeps, 'eventStore'> & { readonly eventStore: Stores['eventStore'] } => {
  const { eventStore } = parts.stores;
  const { readSide } = parts;
  return {
    eventStore,
    progress,
    appliedPosition: () => readSide.appliedPosition(),
    lag: readSide.lag ?? (async () => measureLag(eventStore, await readSide.appliedPosition())),
    clock: parts.clock ?? systemClock,
    unknownKeyWaitMs: parts.config.readYourWritesTimeoutMs,
  };
};
