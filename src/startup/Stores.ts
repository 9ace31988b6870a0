import type { Stores } from '../application/ports/Stores.js';

export type { Stores } from '../application/ports/Stores.js';

/**
 * Closes every store, the log last (the others may share its connection). Each
 * is closed even when one before it fails; the first failure is thrown after.
 */
export const closeStores = async (stores: Stores): Promise<void> => {
  const closers = [stores.usage, stores.companyExports, stores.consoleSessions, stores.rateLimits, stores.idempotency, stores.subjectKeys, stores.webhookSecrets, stores.webhookOutbox, stores.readModels, stores.readReplica, stores.eventStore];
  const failures: unknown[] = [];
  for (const store of closers) {
    try {
      await store?.close?.();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
};
