/**
 * Per-API-key request limits: requests per UTC hour, requests per UTC day, and
 * requests in flight at once.
 *
 * Both request windows are fixed windows aligned to UTC: the hourly one runs from
 * the top of one UTC hour to the next, the daily one from midnight UTC to the next
 * midnight. Every request counts, refused ones included, so a client that keeps
 * hammering a closed window stays refused until the window ends.
 */

export interface RateLimits {
  readonly hourly: number;
  readonly daily: number;
  readonly concurrent: number;
}

export type RateLimitWindowName = 'hourly' | 'daily';

export interface RateLimitWindowState {
  readonly limit: number;
  /** Requests left in the window (never negative). */
  readonly remaining: number;
  /** When the window ends and the count starts again. */
  readonly resetAt: Date;
}

export interface RateLimitDecision {
  /** True when neither window has gone over its limit with this request. */
  readonly allowed: boolean;
  readonly hourly: RateLimitWindowState;
  readonly daily: RateLimitWindowState;
  /** The windows this request went over (empty when allowed). */
  readonly exceeded: readonly RateLimitWindowName[];
  /** Whole seconds until every exceeded window has reset (at least 1); 0 when allowed. */
  readonly retryAfterSeconds: number;
}

/** Gives a concurrency slot back. Calling it more than once does nothing more. */
export type ReleaseSlot = () => Promise<void>;

/** A request counted and, when its windows allow it, given a concurrency slot (`take`). */
export interface RateLimitTaken {
  readonly decision: RateLimitDecision;
  /** Gives the slot back (more than once does nothing more); null when none was taken: refused by a window, or none free. */
  readonly release: (() => void) | null;
}

/** A request counted and, when its windows allow it, given a concurrency slot (`admit`). */
export interface RateLimitAdmission {
  readonly decision: RateLimitDecision;
  /** Gives the slot back; null when none was taken: refused by a window, or none free. */
  readonly release: ReleaseSlot | null;
}

export interface RateLimitCounters {
  readonly limits: RateLimits;
  /** Counts one request of `keyId` at `now` in both windows, and says whether it may go on. */
  consume(keyId: string, now: Date): Promise<RateLimitDecision>;
  /**
   * Takes one of the key's concurrency slots: the release function, or null when
   * all slots are taken. A slot is a lease that expires on its own, so a process
   * that dies mid-request does not keep it forever.
   */
  acquire(keyId: string): Promise<ReleaseSlot | null>;
  /**
   * `consume` and, when allowed, `acquire`, answered at once: only counters held
   * in this process's memory have it (no store to wait for), and the middleware
   * then spends no promise on them.
   */
  take?(keyId: string, now: Date): RateLimitTaken;
  /**
   * `take` for counters kept by another process: one question to it instead of
   * `consume`'s and `acquire`'s two.
   */
  admit?(keyId: string, now: Date): Promise<RateLimitAdmission>;
  /**
   * The same counters (the same store, the same keys) judged against other limits:
   * for callers of another kind whose limits differ (the admin API's tokens). The
   * counts of a key do not depend on the limits; the caller keeps the keys of each
   * kind apart (a prefix of its own). Closing stays with these counters.
   */
  withLimits(limits: RateLimits): RateLimitCounters;
  /**
   * Counts `n` requests of `keyId` at `now` in both windows at once, refusing none:
   * the windows' counts with them. What batches counts (`BatchedRateLimitCounters`)
   * needs it of the store it batches for.
   */
  add?(keyId: string, now: Date, n: number): Promise<WindowCounts>;
  /** Closes what the counters hold of their own (a file); counters on another store's connection have none. */
  close?(): Promise<void>;
}

/** A key's counts in the UTC hour and the UTC day that hold a time. */
export interface WindowCounts {
  readonly hourly: number;
  readonly daily: number;
}

export interface UtcWindow {
  readonly start: Date;
  readonly end: Date;
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The start (epoch ms) of the UTC hour that holds `at` (epoch ms). */
export const utcHourStart = (at: number): number => Math.floor(at / HOUR_MS) * HOUR_MS;

/** The start (epoch ms) of the UTC day that holds `at`. UTC has no DST, so every day is 24 h. */
export const utcDayStart = (at: number): number => Math.floor(at / DAY_MS) * DAY_MS;

/** The UTC hour that holds `now`: [hh:00:00.000, next hh:00:00.000). */
export const utcHourWindow = (now: Date): UtcWindow => {
  const start = utcHourStart(now.getTime());
  return { start: new Date(start), end: new Date(start + HOUR_MS) };
};

/** The UTC day that holds `now`: [00:00 UTC, next 00:00 UTC). */
export const utcDayWindow = (now: Date): UtcWindow => {
  const start = utcDayStart(now.getTime());
  return { start: new Date(start), end: new Date(start + DAY_MS) };
};

/** Whole seconds from `now` until `end`, rounded up. */
export const secondsUntil = (end: Date, now: Date): number => Math.max(0, Math.ceil((end.getTime() - now.getTime()) / 1000));

/**
 * The decision for a request that brought the windows' counts to `hourlyCount` and
 * `dailyCount` (this request included).
 */
export const rateLimitDecision = (
  limits: Pick<RateLimits, 'hourly' | 'daily'>,
  now: Date,
  hourlyCount: number,
  dailyCount: number,
): RateLimitDecision => {
  // On every request: no window objects, the exceeded list one of four constants.
  const at = now.getTime();
  const hourlyReset = new Date(utcHourStart(at) + HOUR_MS);
  const dailyReset = new Date(utcDayStart(at) + DAY_MS);
  const overHourly = hourlyCount > limits.hourly;
  const overDaily = dailyCount > limits.daily;
  const exceeded = overHourly ? (overDaily ? HOURLY_AND_DAILY : HOURLY_ONLY) : overDaily ? DAILY_ONLY : NONE;
  return {
    allowed: exceeded.length === 0,
    hourly: { limit: limits.hourly, remaining: Math.max(0, limits.hourly - hourlyCount), resetAt: hourlyReset },
    daily: { limit: limits.daily, remaining: Math.max(0, limits.daily - dailyCount), resetAt: dailyReset },
    exceeded,
    retryAfterSeconds:
      exceeded.length === 0 ? 0 : Math.max(1, overHourly ? secondsUntil(hourlyReset, now) : 0, overDaily ? secondsUntil(dailyReset, now) : 0),
  };
};

const NONE: readonly RateLimitWindowName[] = [];
const HOURLY_ONLY: readonly RateLimitWindowName[] = ['hourly'];
const DAILY_ONLY: readonly RateLimitWindowName[] = ['daily'];
const HOURLY_AND_DAILY: readonly RateLimitWindowName[] = ['hourly', 'daily'];
