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
  type WindowCounts,
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
 * `expire` (epoch ms) has passed, starts again at `points` with its new expiry; any other
 * adds `points` and keeps its expiry. `key`, `expire`, `now` and `points` are the
 * statement's parameters of that row (`from`: where the new rows come from).
 */
const countRow = (key: string, expire: string, now: string, points: string, from = `VALUES (${key}, ${points}, ${expire})`): string =>
  `INSERT INTO ${TABLE} (key, points, expire) ${from}
   ON CONFLICT (key) DO UPDATE SET
     points = CASE WHEN ${TABLE}.expire <= ${now} THEN ${points} ELSE ${TABLE}.points + ${points} END,
     expire = CASE WHEN ${TABLE}.expire <= ${now} THEN ${expire} ELSE ${TABLE}.expire END
   RETURNING key, points`;

/**
 * `admit` for `$10` requests of one key in the same windows, in one statement: the hour's
 * and the day's counts each go up by `$10`, and the slots `$3` (distinct, in the order
 * drawn) are taken one for each request the counts allow. The requests are counted in
 * turn, so the i-th (from 1) sees the hour at `hourly - $10 + i`: it is allowed while that
 * is within `$7` and the day's within `$8`, which makes the first
 * `least($7 - hourly, $8 - daily) + $10` of them the allowed ones (refused requests count,
 * but hold no slot). The rows are those the library's limiters write (`hourly:…`,
 * `daily:…`, `slot:…`); the hour's row is locked first, so the statements of one key run
 * one after another, and the slots are locked in the order of their keys, as the releases
 * lock them (no two statements wait for each other). `taken`: the slots that were free
 * (1: ours now); a slot that answers more is someone else's.
 */
const ADMIT = `WITH hourly AS (${countRow('$1::text', '$4::bigint', '$9::bigint', '$10::bigint')}),
  daily AS (${countRow('$2::text', '$5::bigint', '$9::bigint', '$10::bigint')}),
  slot AS (${countRow('s.key', '$6::bigint', '$9::bigint', '1',
    `SELECT s.key, 1, $6::bigint FROM unnest($3::text[]) WITH ORDINALITY AS s (key, n)
     WHERE s.n <= least($7::bigint - (SELECT points FROM hourly), $8::bigint - (SELECT points FROM daily)) + $10::bigint
     ORDER BY s.key`)})
SELECT (SELECT points FROM hourly) AS hourly, (SELECT points FROM daily) AS daily,
  coalesce((SELECT array_agg(key) FROM slot WHERE points = 1), ARRAY[]::text[]) AS taken`;

/** `n` (`$6`) requests of one key counted in its hour and its day, refusing none: both counts with them. */
const ADD = `WITH hourly AS (${countRow('$1::text', '$3::bigint', '$5::bigint', '$6::bigint')}),
  daily AS (${countRow('$2::text', '$4::bigint', '$5::bigint', '$6::bigint')})
SELECT (SELECT points FROM hourly) AS hourly, (SELECT points FROM daily) AS daily`;

/** The slots freed together, their rows locked in the order of their keys (as `ADMIT` takes them) before they go. */
const FREE_SLOTS = `DELETE FROM ${TABLE} WHERE key IN (SELECT key FROM ${TABLE} WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE)`;

/** A request waiting for its turn's statement (`admit`). */
interface Admission {
  readonly now: Date;
  readonly resolve: (admission: RateLimitAdmission) => void;
  readonly reject: (error: unknown) => void;
}

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
 * both windows and a slot in one prepared statement (decision 0125), shared by the
 * key's requests of the same turn of the event loop, as the releases of a turn share
 * one (decision 0127). Every statement that locks several slot rows locks them in the
 * order of their keys, so none waits for another that waits for it.
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
  /** The requests counted in this turn of the event loop, by key and windows, counted together at its end (see `admit`). */
  private readonly admitting = new Map<string, { readonly keyId: string; readonly admissions: Admission[] }>();

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
   * tried at random: where `consume` and `acquire` make three round trips, one statement,
   * shared by the requests of the same key that come in the same turn of the event loop
   * (counted in the order they came). When the slot a request drew is held, the others are
   * tried one after another (`acquire`).
   */
  admit(keyId: string, now: Date): Promise<RateLimitAdmission> {
    return new Promise((resolve, reject) => {
      // A turn's requests in the same hour and day of one key share a statement.
      const group = `${utcHourWindow(now).start.getTime()} ${utcDayWindow(now).start.getTime()} ${keyId}`;
      const waiting = this.admitting.get(group);
      if (waiting) waiting.admissions.push({ now, resolve, reject });
      else this.admitting.set(group, { keyId, admissions: [{ now, resolve, reject }] });
      if (this.admitting.size === 1 && !waiting) setImmediate(() => this.admitWaiting());
    });
  }

  private admitWaiting(): void {
    const groups = [...this.admitting.values()];
    this.admitting.clear();
    for (const { keyId, admissions } of groups) {
      this.admitTogether(keyId, admissions).catch((error: unknown) => admissions.forEach((a) => a.reject(error)));
    }
  }

  /** The requests of one key in one hour and day, in the order they came: one `ADMIT`. */
  private async admitTogether(keyId: string, admissions: readonly Admission[]): Promise<void> {
    const { now } = admissions[0]!;
    const hour = utcHourWindow(now);
    const day = utcDayWindow(now);
    const n = admissions.length;
    const { concurrent } = this.limits;
    // Distinct slots from one drawn at random: the i-th request's is the i-th.
    const first = randomInt(concurrent);
    const slots = Array.from({ length: Math.min(n, concurrent) }, (_, i) => slotKey(keyId, (first + i) % concurrent));
    // Expiries and the lease on the store's clock (Date.now), as the library's counts; windows on the request's.
    const takenAt = Date.now();
    const expireIn = (seconds: number) => takenAt + seconds * 1000;
    const { rows } = await preparedQuery<{ hourly: number; daily: number; taken: string[] }>(this.pool, ADMIT, [
      storedKey('hourly', windowKey(keyId, hour)),
      storedKey('daily', windowKey(keyId, day)),
      slots.map((slot) => storedKey('slot', slot)),
      expireIn(secondsUntil(hour.end, now) + WINDOW_GRACE_SECONDS),
      expireIn(secondsUntil(day.end, now) + WINDOW_GRACE_SECONDS),
      expireIn(this.leaseSeconds),
      this.limits.hourly,
      this.limits.daily,
      takenAt,
      n,
    ]);
    const counted = rows[0]!;
    const taken = new Set(counted.taken);
    admissions.forEach((admission, i) => {
      const decision = rateLimitDecision(this.limits, admission.now, Number(counted.hourly) - n + i + 1, Number(counted.daily) - n + i + 1);
      if (!decision.allowed) return admission.resolve({ decision, release: null });
      const slot = slots[i];
      if (slot !== undefined && taken.has(storedKey('slot', slot))) return admission.resolve({ decision, release: this.releaser(slot, takenAt) });
      // Its slot was held (or there were fewer slots than requests): the others, one after another.
      this.acquireFrom(keyId, first + i + 1, concurrent - 1).then(
        (release) => admission.resolve({ decision, release }),
        (error: unknown) => admission.reject(error),
      );
    });
  }

  /** Counts `n` requests of the key in its hour and its day with one statement (what `BatchedRateLimitCounters` flushes). */
  async add(keyId: string, now: Date, n: number): Promise<WindowCounts> {
    const hour = utcHourWindow(now);
    const day = utcDayWindow(now);
    const takenAt = Date.now();
    const expireIn = (seconds: number) => takenAt + seconds * 1000;
    const { rows } = await preparedQuery<{ hourly: string; daily: string }>(this.pool, ADD, [
      storedKey('hourly', windowKey(keyId, hour)),
      storedKey('daily', windowKey(keyId, day)),
      expireIn(secondsUntil(hour.end, now) + WINDOW_GRACE_SECONDS),
      expireIn(secondsUntil(day.end, now) + WINDOW_GRACE_SECONDS),
      takenAt,
      n,
    ]);
    return { hourly: Number(rows[0]!.hourly), daily: Number(rows[0]!.daily) };
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
      await preparedQuery(this.pool, FREE_SLOTS, [freed.map((slot) => slot.key)]);
      freed.forEach((slot) => slot.resolve());
    } catch (error) {
      freed.forEach((slot) => slot.reject(error));
    }
  }

  /**
   * Deletes counters that ran out; a failure waits for the next round. Answers how many.
   * A row a request holds locked (taking over an expired slot) is left to the next round:
   * this statement waits for no one.
   */
  async clearExpired(now = Date.now()): Promise<number> {
    try {
      const expired = `SELECT key FROM ${TABLE} WHERE expire IS NOT NULL AND expire < $1 ORDER BY key FOR UPDATE SKIP LOCKED`;
      return (await query(this.pool, `DELETE FROM ${TABLE} WHERE key IN (${expired})`, [now])).rowCount ?? 0;
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
