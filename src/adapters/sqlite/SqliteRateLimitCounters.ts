import { RateLimiterSQLite } from 'rate-limiter-flexible';
import type { RateLimits } from '../../application/ports/RateLimitCounters.js';
import { FlexibleRateLimitCounters, type RateLimitCounterOptions } from '../rateLimiterFlexible/FlexibleRateLimitCounters.js';
import { openWalDatabase, type SqliteDatabase } from './openSqliteDatabase.js';

/** The table of every rate-limit counter (rate-limiter-flexible's layout: key, points, expire in ms). */
const TABLE = 'rate_limits';

/** Expired counters (finished windows, leases of dead processes) are deleted this often. */
const CLEAR_EVERY_MS = 5 * 60_000;

/**
 * Opens the counters' own SQLite file. WAL with a busy timeout, so every process on
 * the DATA_DIR counts in it at once; `synchronous=NORMAL`: a counter lost to a
 * power cut only forgives a client part of a window.
 */
const openRateLimitDatabase = (file: string): SqliteDatabase =>
  openWalDatabase(file, {
    synchronous: 'NORMAL',
    // IF NOT EXISTS: files of releases before migrations here have the table already.
    migrations: [`CREATE TABLE IF NOT EXISTS ${TABLE} (key TEXT PRIMARY KEY, points INTEGER NOT NULL DEFAULT 0, expire INTEGER)`],
  });

/**
 * Embedded mode: counters in a SQLite file of their own in DATA_DIR
 * (`rate-limits.sqlite`, rate-limiter-flexible's RateLimiterSQLite on
 * better-sqlite3), so that every process on one DATA_DIR (API processes, API
 * workers) counts against the same hourly, daily and concurrency limits. Each count
 * is one `INSERT … ON CONFLICT DO UPDATE … RETURNING` statement, atomic across
 * processes (SQLite's write lock); an expired counter starts again in the same
 * statement, so a concurrency lease of a killed process is free once it runs out.
 * Expired rows are deleted every five minutes.
 */
export class SqliteRateLimitCounters extends FlexibleRateLimitCounters {
  private readonly clearTimer: NodeJS.Timeout;

  private constructor(
    private readonly db: SqliteDatabase,
    limits: RateLimits,
    options: RateLimitCounterOptions,
  ) {
    super(
      limits,
      // The table exists already (openRateLimitDatabase): the limiter neither creates it nor clears it on its own timer.
      (spec) => new RateLimiterSQLite({ ...spec, storeClient: db, storeType: 'better-sqlite3', tableName: TABLE, tableCreated: true }),
      options,
    );
    this.clearTimer = setInterval(() => this.clearExpired(), CLEAR_EVERY_MS);
    this.clearTimer.unref();
  }

  static open(file: string, limits: RateLimits, options: RateLimitCounterOptions = {}): SqliteRateLimitCounters {
    return new SqliteRateLimitCounters(openRateLimitDatabase(file), limits, options);
  }

  /** Deletes counters that ran out; a failure (the file busy past the timeout) waits for the next round. */
  clearExpired(now = Date.now()): number {
    try {
      return this.db.prepare(`DELETE FROM ${TABLE} WHERE expire IS NOT NULL AND expire < ?`).run(now).changes;
    } catch {
      return 0;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.clearTimer);
    if (this.db.open) this.db.close();
  }
}
