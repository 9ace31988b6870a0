import type pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { RateLimits } from '../../application/ports/RateLimitCounters.js';
import { FlexibleRateLimitCounters, type RateLimitCounterOptions } from '../rateLimiterFlexible/FlexibleRateLimitCounters.js';
import { query, withConnection } from './postgresPool.js';

/** The table of every counter (rate-limiter-flexible's layout: key, points, expire in epoch ms), made by the log's migrations. */
const TABLE = 'rate_limits';

/** Expired counters (finished windows, slots of dead processes) are deleted this often. */
const CLEAR_EVERY_MS = 5 * 60_000;

/**
 * The pool as the library calls it (`query(config)`), through `withConnection`: a
 * server that cannot be reached, or refuses for now, fails as busy (503) rather
 * than as an error the API does not know (500).
 */
const translating = (pool: pg.Pool) => ({
  query: (config: pg.QueryConfig) => withConnection(pool, (client) => client.query(config)),
});

/**
 * Counters in the `rate_limits` table (rate-limiter-flexible's RateLimiterPostgres
 * on the shared pool), so that every API process on every host counts against the
 * same hourly, daily and concurrency limits. Each count is one `INSERT … ON
 * CONFLICT DO UPDATE … RETURNING` statement, atomic on the server; a counter that
 * has expired starts again in that statement. Windows are named by their start
 * (see FlexibleRateLimitCounters); a slot's lease expires on the clock of the
 * process that took it. Expired rows are deleted every five minutes, by this
 * process's own timer rather than the library's.
 *
 * Production gives it a pool of its own whose commits do not wait for the disk
 * (`openPostgresStores`): every request writes these rows, a key's requests one
 * after another on the same rows, and a count lost in a crash of the database
 * lets a client a few more requests, which a rate limit can afford.
 */
export class PostgresRateLimitCounters extends FlexibleRateLimitCounters {
  private readonly clearTimer: NodeJS.Timeout;
  private readonly ownsPool: boolean;

  constructor(
    private readonly pool: pg.Pool,
    limits: RateLimits,
    options: RateLimitCounterOptions & {
      /** The pool is this store's own (the counters' pool of asynchronous commits): `close` ends it. */
      readonly ownsPool?: boolean;
    } = {},
  ) {
    super(
      limits,
      (spec) =>
        new RateLimiterPostgres({ ...spec, storeClient: translating(pool), storeType: 'pool', tableName: TABLE, tableCreated: true, clearExpiredByTimeout: false }),
      options,
    );
    this.ownsPool = options.ownsPool === true;
    this.clearTimer = setInterval(() => void this.clearExpired(), CLEAR_EVERY_MS);
    this.clearTimer.unref();
  }

  /** Deletes counters that ran out; a failure waits for the next round. Answers how many. */
  async clearExpired(now = Date.now()): Promise<number> {
    try {
      return (await query(this.pool, `DELETE FROM ${TABLE} WHERE expire IS NOT NULL AND expire < $1`, [now])).rowCount ?? 0;
    } catch {
      return 0;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.clearTimer);
    if (this.ownsPool) await this.pool.end();
  }
}
