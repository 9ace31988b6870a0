import { randomInt } from 'node:crypto';
import type pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import {
  rateLimitDecision,
  secondsUntil,
  utcDayWindow,
  utcHourWindow,
  type RateLimitAdmission,
  type RateLimits,
} from '../../application/ports/RateLimitCounters.js';
import {
  FlexibleRateLimitCounters,
  WINDOW_GRACE_SECONDS,
  slotKey,
  storedKey,
  windowKey,
  type RateLimitCounterOptions,
} from '../rateLimiterFlexible/FlexibleRateLimitCounters.js';
import { preparedQuery, query, withConnection } from './postgresPool.js';

/** The table of every counter (rate-limiter-flexible's layout: key, points, expire in epoch ms), made by the log's migrations. */
const TABLE = 'rate_limits';

/** Expired counters (finished windows, slots of dead processes) are deleted this often. */
const CLEAR_EVERY_MS = 5 * 60_000;

/**
 * One count of a counter row as the library's upsert makes it: a new row, or one whose
 * `expire` (epoch ms) has passed, starts again at 1 with its new expiry; any other
 * adds 1 and keeps its expiry. `key`, `expire` and `now` are the statement's
 * parameters of that row (`from`: where the new row comes from).
 */
const countRow = (key: string, expire: string, now: string, from = `VALUES (${key}, 1, ${expire})`): string =>
  `INSERT INTO ${TABLE} (key, points, expire) ${from}
   ON CONFLICT (key) DO UPDATE SET
     points = CASE WHEN ${TABLE}.expire <= ${now} THEN 1 ELSE ${TABLE}.points + 1 END,
     expire = CASE WHEN ${TABLE}.expire <= ${now} THEN ${expire} ELSE ${TABLE}.expire END
   RETURNING points`;

/**
 * `admit` in one statement: the hour's and the day's counts, and one slot taken only
 * when both counts are within `$7` and `$8` (refused requests count, but hold no slot).
 * The rows are those the library's limiters write (`hourly:…`, `daily:…`, `slot:…`),
 * locked in that order by every caller. `slot` is null when the windows refused it,
 * 1 when it was free (ours now), more when someone holds it.
 */
const ADMIT = `WITH hourly AS (${countRow('$1::text', '$4::bigint', '$9::bigint')}),
  daily AS (${countRow('$2::text', '$5::bigint', '$9::bigint')}),
  slot AS (${countRow('$3::text', '$6::bigint', '$9::bigint',
    'SELECT $3::text, 1, $6::bigint WHERE (SELECT points FROM hourly) <= $7::bigint AND (SELECT points FROM daily) <= $8::bigint')})
SELECT (SELECT points FROM hourly) AS hourly, (SELECT points FROM daily) AS daily, (SELECT points FROM slot) AS slot`;

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
 * process's own timer rather than the library's. A request is counted by `admit`:
 * both windows and a slot in one prepared statement (decision 0125).
 *
 * Production gives it a pool of its own whose commits do not wait for the disk
 * (`openPostgresStores`): every request writes these rows, a key's requests one
 * after another on the same rows, and a count lost in a crash of the database
 * lets a client a few more requests, which a rate limit can afford.
 */
export class PostgresRateLimitCounters extends FlexibleRateLimitCounters {
  private readonly clearTimer: NodeJS.Timeout | null;
  private readonly ownsPool: boolean;
  /** The slots freed in this turn of the event loop, deleted together at its end (see `freeSlot`). */
  private freed: Array<{ readonly key: string; readonly resolve: () => void; readonly reject: (error: unknown) => void }> = [];

  constructor(
    private readonly pool: pg.Pool,
    limits: RateLimits,
    private readonly counterOptions: RateLimitCounterOptions & {
      /** The pool is this store's own (the counters' pool of asynchronous commits): `close` ends it. */
      readonly ownsPool?: boolean;
      /** Deletes expired rows every five minutes (default); off for counters sharing another's (`withLimits`). */
      readonly clearsExpired?: boolean;
    } = {},
  ) {
    super(
      limits,
      (spec) =>
        new RateLimiterPostgres({ ...spec, storeClient: translating(pool), storeType: 'pool', tableName: TABLE, tableCreated: true, clearExpiredByTimeout: false }),
      counterOptions,
    );
    this.ownsPool = counterOptions.ownsPool === true;
    this.clearTimer = counterOptions.clearsExpired === false ? null : setInterval(() => void this.clearExpired(), CLEAR_EVERY_MS);
    this.clearTimer?.unref();
  }

  /** The same rows, pool and one-statement `admit`, judged with other limits; closing stays with these counters. */
  override withLimits(limits: RateLimits): PostgresRateLimitCounters {
    return new PostgresRateLimitCounters(this.pool, limits, { ...this.counterOptions, ownsPool: false, clearsExpired: false });
  }

  /**
   * Counts the request in its hour and its day and, when both allow it, takes a slot
   * tried at random: one statement, one round trip, where `consume` and `acquire` make
   * three. When that slot is held, the others are tried one after another (`acquire`).
   */
  async admit(keyId: string, now: Date): Promise<RateLimitAdmission> {
    const hour = utcHourWindow(now);
    const day = utcDayWindow(now);
    const first = randomInt(this.limits.concurrent);
    const slot = slotKey(keyId, first);
    // Expiries and the lease on the store's clock (Date.now), as the library's counts; windows on the request's.
    const takenAt = Date.now();
    const expireIn = (seconds: number) => takenAt + seconds * 1000;
    const { rows } = await preparedQuery<{ hourly: number; daily: number; slot: number | null }>(this.pool, ADMIT, [
      storedKey('hourly', windowKey(keyId, hour)),
      storedKey('daily', windowKey(keyId, day)),
      storedKey('slot', slot),
      expireIn(secondsUntil(hour.end, now) + WINDOW_GRACE_SECONDS),
      expireIn(secondsUntil(day.end, now) + WINDOW_GRACE_SECONDS),
      expireIn(this.leaseSeconds),
      this.limits.hourly,
      this.limits.daily,
      takenAt,
    ]);
    const counted = rows[0]!;
    const decision = rateLimitDecision(this.limits, now, counted.hourly, counted.daily);
    if (!decision.allowed || counted.slot === null) return { decision, release: null };
    if (counted.slot === 1) return { decision, release: this.releaser(slot, takenAt) };
    return { decision, release: await this.acquireFrom(keyId, first + 1, this.limits.concurrent - 1) };
  }

  /**
   * The slots freed during one turn of the event loop are deleted together, by one
   * statement at the end of the turn: a request's release no longer costs a round
   * trip of its own. Each release resolves (or fails) with that statement.
   */
  protected override freeSlot(key: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.freed.push({ key: storedKey('slot', key), resolve, reject });
      if (this.freed.length === 1) setImmediate(() => void this.deleteFreed());
    });
  }

  private async deleteFreed(): Promise<void> {
    const freed = this.freed;
    this.freed = [];
    try {
      await preparedQuery(this.pool, `DELETE FROM ${TABLE} WHERE key = ANY($1::text[])`, [freed.map((slot) => slot.key)]);
      freed.forEach((slot) => slot.resolve());
    } catch (error) {
      freed.forEach((slot) => slot.reject(error));
    }
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
    if (this.clearTimer) clearInterval(this.clearTimer);
    // The slots freed in this very turn, before the pool goes.
    if (this.freed.length > 0) await this.deleteFreed();
    if (this.ownsPool) await this.pool.end();
  }
}
