import { randomInt } from 'node:crypto';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import {
  rateLimitDecision,
  secondsUntil,
  utcDayWindow,
  utcHourWindow,
  type RateLimitCounters,
  type RateLimitDecision,
  type RateLimits,
  type ReleaseSlot,
  type UtcWindow,
} from '../../application/ports/RateLimitCounters.js';

/** The part of a rate-limiter-flexible limiter the counters use. */
export type Limiter = Pick<RateLimiterAbstract, 'consume' | 'delete'>;

/** What a store-specific limiter is built from. */
export interface LimiterSpec {
  /** `hourly`, `daily` or `slot`: prefixes the stored keys, so one store can hold all three. */
  readonly keyPrefix: string;
  readonly points: number;
  /** Default lifetime of a new counter in seconds (every call passes its own `customDuration`). */
  readonly duration: number;
}

export interface RateLimitCounterOptions {
  /**
   * Lifetime of a concurrency slot in seconds (default 120). A slot whose process
   * died is free again after it; it must be longer than any request takes.
   */
  readonly leaseSeconds?: number;
}

export const DEFAULT_LEASE_SECONDS = 120;

/**
 * A window's counter lives this long after the window's end, so that an instance
 * whose clock runs a little behind still adds to the same count; it is never read
 * after the window anyway (the key names the window).
 */
export const WINDOW_GRACE_SECONDS = 60;

/**
 * A release this close to the end of the lease leaves the slot to expire (it may be
 * someone else's by then): a second, or a tenth of a short lease.
 */
const releaseMarginMs = (leaseSeconds: number): number => Math.min(1_000, leaseSeconds * 100);

/** ISO strings of the last few window starts: one per window kind, reused by every request in it. */
const isoCache = new Map<number, string>();
const isoOf = (date: Date): string => {
  const ms = date.getTime();
  let iso = isoCache.get(ms);
  if (iso === undefined) {
    if (isoCache.size > 8) isoCache.clear();
    iso = date.toISOString();
    isoCache.set(ms, iso);
  }
  return iso;
};

/** `<keyId>:<window start>`: each window is a counter of its own. */
export const windowKey = (keyId: string, window: UtcWindow): string => `${keyId}:${isoOf(window.start)}`;

/** The `keyPrefix` of each limiter: a store holds a limiter's key as `<prefix>:<key>` (see `storedKey`). */
export const LIMITER_PREFIXES = { hourly: 'hourly', daily: 'daily', slot: 'slot' } as const;

/** The key as rate-limiter-flexible stores it for the limiter of `prefix`. */
export const storedKey = (prefix: keyof typeof LIMITER_PREFIXES, key: string): string => `${LIMITER_PREFIXES[prefix]}:${key}`;

/** `<keyId>:<n>`: the key's slot number `n` (of `concurrent`). */
export const slotKey = (keyId: string, n: number): string => `${keyId}:${n}`;

/**
 * Adds one point and resolves with the counter's state whether or not the point
 * fitted: a refused request counts too. Store failures (Errors) propagate.
 */
const countOne = async (limiter: Limiter, key: string, customDuration: number): Promise<RateLimiterRes> => {
  try {
    return await limiter.consume(key, 1, { customDuration });
  } catch (error) {
    if (error instanceof RateLimiterRes) return error;
    throw error;
  }
};

/**
 * Rate-limit counters on rate-limiter-flexible limiters, whatever their store.
 *
 * - **Windows.** Each UTC hour and each UTC day is a counter of its own, keyed by
 *   the window's start (`<keyId>:2026-01-01T13:00:00.000Z`). A new window is a new
 *   key, so the count restarts exactly at the boundary whatever the store's expiry
 *   timing, and every instance (and an injected test clock) agrees on the window
 *   from the time alone. `customDuration` only tells the store when to throw the
 *   counter away: at the window's end plus a minute of grace.
 * - **Concurrency.** A key has `concurrent` slots, each a 1-point counter whose
 *   expiry is the lease. Taking a slot is consuming its point (tried from a random
 *   slot onwards); giving it back deletes the counter. A slot of a process that died
 *   expires with its lease, and the store's atomic upsert hands it to the next caller.
 */
export class FlexibleRateLimitCounters implements RateLimitCounters {
  protected readonly hourly: Limiter;
  protected readonly daily: Limiter;
  protected readonly slots: Limiter;
  protected readonly leaseSeconds: number;

  constructor(
    readonly limits: RateLimits,
    private readonly limiter: (spec: LimiterSpec) => Limiter,
    private readonly options: RateLimitCounterOptions = {},
  ) {
    this.leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
    if (!Number.isInteger(this.leaseSeconds) || this.leaseSeconds < 1) throw new Error('leaseSeconds must be a whole number of at least 1');
    this.hourly = limiter({ keyPrefix: LIMITER_PREFIXES.hourly, points: limits.hourly, duration: 3_600 + WINDOW_GRACE_SECONDS });
    this.daily = limiter({ keyPrefix: LIMITER_PREFIXES.daily, points: limits.daily, duration: 86_400 + WINDOW_GRACE_SECONDS });
    this.slots = limiter({ keyPrefix: LIMITER_PREFIXES.slot, points: 1, duration: this.leaseSeconds });
  }

  /** Limiters of their own on the same store (cheap: a limiter holds no connection); closing stays with these. */
  withLimits(limits: RateLimits): RateLimitCounters {
    return new FlexibleRateLimitCounters(limits, this.limiter, this.options);
  }

  async consume(keyId: string, now: Date): Promise<RateLimitDecision> {
    const hour = utcHourWindow(now);
    const day = utcDayWindow(now);
    const [hourly, daily] = await Promise.all([
      countOne(this.hourly, windowKey(keyId, hour), secondsUntil(hour.end, now) + WINDOW_GRACE_SECONDS),
      countOne(this.daily, windowKey(keyId, day), secondsUntil(day.end, now) + WINDOW_GRACE_SECONDS),
    ]);
    return rateLimitDecision(this.limits, now, hourly.consumedPoints, daily.consumedPoints);
  }

  async acquire(keyId: string): Promise<ReleaseSlot | null> {
    return this.acquireFrom(keyId, randomInt(this.limits.concurrent), this.limits.concurrent);
  }

  /** Tries `tries` of the key's slots one after another, from slot `first` on (round the end): the first free one's release, or null. */
  protected async acquireFrom(keyId: string, first: number, tries: number): Promise<ReleaseSlot | null> {
    const count = this.limits.concurrent;
    for (let i = 0; i < tries; i += 1) {
      const key = slotKey(keyId, (first + i) % count);
      // The lease runs on the store's clock (Date.now), not the request clock.
      const takenAt = Date.now();
      const slot = await countOne(this.slots, key, this.leaseSeconds);
      // 1: the slot was free (or its lease had run out) and is ours now; more: someone holds it.
      if (slot.consumedPoints === 1) return this.releaser(key, takenAt);
    }
    return null;
  }

  /** The release of the slot `key` (see `slotKey`) taken at `takenAt` (the store's clock). */
  protected releaser(key: string, takenAt: number): ReleaseSlot {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      // Past its lease the slot may already be another request's: leave it to expire.
      if (Date.now() - takenAt < this.leaseSeconds * 1000 - releaseMarginMs(this.leaseSeconds)) await this.freeSlot(key);
    };
  }

  /** Gives the slot `key` back (deletes its counter); a store may group the slots freed together. */
  protected async freeSlot(key: string): Promise<void> {
    await this.slots.delete(key);
  }
}
