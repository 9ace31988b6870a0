import type { Logger } from '../../application/ports/Logger.js';
import type { RateLimits } from '../../application/ports/RateLimitCounters.js';
import type { Stores } from '../../application/ports/Stores.js';
import { CONSOLE_SCHEMA, consoleMigrations } from './consoleMigrations.js';
import { EXPORTS_SCHEMA, exportMigrations } from './exportMigrations.js';
import { PostgresCompanyExportStore } from './PostgresCompanyExportStore.js';
import { LOG_SCHEMA, logMigrations } from './logMigrations.js';
import { migratePostgres } from './migratePostgres.js';
import { PostgresConsoleSessionStore } from './PostgresConsoleSessionStore.js';
import { PostgresErasureCompaction } from './PostgresErasureCompaction.js';
import { DEFAULT_READ_MODEL_SCHEMA } from './readModelSchema.js';
import { PostgresEventStore } from './PostgresEventStore.js';
import { PostgresIdempotencyStore } from './PostgresIdempotencyStore.js';
import { PostgresLeaseStore } from './PostgresLeaseStore.js';
import { PostgresReadModelStore } from './PostgresReadModelStore.js';
import { PostgresRateLimitCounters } from './PostgresRateLimitCounters.js';
import { PostgresSubjectKeyStore } from './PostgresSubjectKeyStore.js';
import { PostgresUsageCounters } from './PostgresUsageCounters.js';
import { PostgresWebhookOutbox } from './PostgresWebhookOutbox.js';
import { PostgresWebhookSecretStore } from './PostgresWebhookSecretStore.js';
import { createPostgresPool } from './postgresPool.js';

/** What the stores are sized and judged with (POSTGRES_POOL_SIZE, RATE_LIMIT_*). */
export interface PostgresStoresSettings {
  /** Connections of the main pool. */
  readonly poolSize: number;
  /** The API's per-key limits, which the rate-limit counters judge with. */
  readonly rateLimits: RateLimits;
}

export interface PostgresStoresOptions {
  /** Told of connection failures the stores get over by themselves (an idle connection dropped, the listening one lost). */
  readonly logger?: Logger;
}

/**
 * Every store of a process in one PostgreSQL database, on one pool of
 * `settings.poolSize` connections (and one more that listens for the log's
 * commits), the rate limits' counters on a pool of their own (half as many,
 * at least 2) whose commits do not wait for the disk. The schema is brought up to date first (migratePostgres: versioned,
 * under an advisory lock, so processes starting at once are safe). The event store
 * owns the pool: closing the stores (`closeStores`, the log last) ends it.
 */
export const openPostgresStores = async (
  url: string,
  settings: PostgresStoresSettings,
  options: PostgresStoresOptions = {},
): Promise<Stores> => {
  const { logger } = options;
  const pool = createPostgresPool(url, {
    max: settings.poolSize,
    onIdleError: (error) => logger?.warn({ err: error }, 'an idle PostgreSQL connection failed; the pool replaces it'),
  });
  // The rate limits' counters, written by every request, on connections whose commits do not wait for the disk.
  const countersPool = createPostgresPool(url, {
    max: countersPoolSize(settings.poolSize),
    applicationName: 'chronicle-counters',
    asynchronousCommit: true,
    onIdleError: (error) => logger?.warn({ err: error }, 'an idle PostgreSQL connection failed; the pool replaces it'),
  });
  try {
    await migratePostgres(pool, LOG_SCHEMA, logMigrations);
    await migratePostgres(pool, CONSOLE_SCHEMA, consoleMigrations);
    await migratePostgres(pool, EXPORTS_SCHEMA, exportMigrations);
    const eventStore = new PostgresEventStore(pool, {
      ownsPool: true,
      onListenFailure: (error, attempt) =>
        logger?.warn({ err: error, attempt }, "the connection that listens for the log's commits failed; subscriptions poll until it is back"),
      // A failover cut a group commit's connection before its answer: the log was read by the events' ids.
      onUnknownOutcome: (what) =>
        logger?.warn(
          what,
          what.unchecked > 0
            ? 'an append lost its connection during its commit, and the log could not be read in time: answered as interrupted'
            : 'an append lost its connection during its commit: found stored, or sent again',
        ),
    });
    // The read models in their own schema, on the same pool; their lease beside the log's tables, on the database's clock.
    const readModels = await PostgresReadModelStore.open(pool, { leases: new PostgresLeaseStore(pool), besideLog: true });
    return {
      eventStore,
      readModels,
      rateLimits: new PostgresRateLimitCounters(countersPool, settings.rateLimits, { ownsPool: true }),
      webhookSecrets: new PostgresWebhookSecretStore(pool),
      webhookOutbox: new PostgresWebhookOutbox(pool, { besideLog: true }),
      idempotency: new PostgresIdempotencyStore(pool),
      consoleSessions: new PostgresConsoleSessionStore(pool),
      usage: new PostgresUsageCounters(pool),
      companyExports: new PostgresCompanyExportStore(pool),
      subjectKeys: new PostgresSubjectKeyStore(pool),
      compaction: new PostgresErasureCompaction(pool, DEFAULT_READ_MODEL_SCHEMA),
    };
  } catch (error) {
    await pool.end().catch(() => undefined);
    await countersPool.end().catch(() => undefined);
    throw error;
  }
};

/** The counters' pool: half of POSTGRES_POOL_SIZE, at least 2 (each request holds one for a statement or two). */
export const countersPoolSize = (poolSize: number): number => Math.max(2, Math.ceil(poolSize / 2));
