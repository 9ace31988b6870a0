import type { EventStore } from '../application/ports/EventStore.js';
import type { IdempotencyStore } from '../application/ports/IdempotencyStore.js';
import type { RateLimitCounters } from '../application/ports/RateLimitCounters.js';
import type { ReadModelStore } from '../application/ports/ReadModelStore.js';
import type { WebhookOutbox } from '../application/ports/WebhookOutbox.js';
import type { WebhookSecretStore } from '../application/ports/WebhookSecretStore.js';

/** Every store a process uses, picked by `openStores` (src/main.ts) from the environment. */
export interface Stores {
  readonly eventStore: EventStore;
  readonly readModels: ReadModelStore;
  /** Shared by every API process: in DATA_DIR's `rate-limits.sqlite`, or in MongoDB beside the read models. */
  readonly rateLimits: RateLimitCounters;
  /** Webhook signing secrets: in the SQLite file (on the event store's connection when it is SQLite), or in MongoDB. */
  readonly webhookSecrets: WebhookSecretStore;
  /** Deliveries waiting or done: in the SQLite file, or in MongoDB beside the read models. */
  readonly webhookOutbox: WebhookOutbox;
  /** Idempotency keys of creating requests: in the SQLite file, or in MongoDB, shared by every process. */
  readonly idempotency: IdempotencyStore;
}

/**
 * Closes every store, the log last (the others may share its connection). Each
 * is closed even when one before it fails; the first failure is thrown after.
 */
export const closeStores = async (stores: Stores): Promise<void> => {
  const closers = [stores.rateLimits, stores.idempotency, stores.webhookSecrets, stores.webhookOutbox, stores.readModels, stores.eventStore];
  const failures: unknown[] = [];
  for (const store of closers) {
    try {
      await store.close?.();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
};
