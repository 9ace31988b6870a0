import type pg from 'pg';
import type { Logger } from '../../application/ports/Logger.js';
import type { ReadReplica } from '../../application/ports/ReadReplica.js';
import type { ReadModelStore } from '../../application/ports/ReadModelStore.js';
import { createPostgresPool } from './postgresPool.js';
import { PostgresReadModelStore } from './PostgresReadModelStore.js';

/** How long a replica read waits for a connection: a replica that does not answer is skipped for a while, not waited for. */
const REPLICA_CONNECTION_WAIT_MS = 2_000;

/**
 * The read models on a streaming replica (POSTGRES_READ_URL, e.g. HAProxy's port
 * for the replicas), on a pool of their own whose connections are read-only
 * (`default_transaction_read_only`): nothing Chronicle sends there can write.
 */
export class PostgresReadReplica implements ReadReplica {
  private constructor(
    private readonly pool: pg.Pool,
    readonly readModels: ReadModelStore,
  ) {}

  static async open(url: string, options: { readonly poolSize: number; readonly logger?: Logger }): Promise<PostgresReadReplica> {
    const pool = createPostgresPool(url, {
      max: options.poolSize,
      applicationName: 'chronicle-replica-reads',
      readOnly: true,
      connectionWaitMs: REPLICA_CONNECTION_WAIT_MS,
      onIdleError: (error) => options.logger?.warn({ err: error }, 'an idle connection to the read replica failed; the pool replaces it'),
    });
    try {
      return new PostgresReadReplica(pool, await PostgresReadModelStore.replica(pool));
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  async replayDelaySeconds(): Promise<number | null> {
    const { rows } = await this.pool.query<{ delay: number | null }>(
      `SELECT CASE
         WHEN NOT pg_is_in_recovery() THEN NULL
         WHEN pg_last_wal_receive_lsn() IS NULL OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
         ELSE greatest(0, extract(epoch FROM now() - pg_last_xact_replay_timestamp()))::float8
       END AS delay`,
    );
    return rows[0]?.delay ?? null;
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
