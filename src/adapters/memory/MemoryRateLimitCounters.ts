import {
  DAY_MS,
  HOUR_MS,
  rateLimitDecision,
  utcDayStart,
  utcHourStart,
  type RateLimitCounters,
  type RateLimitDecision,
  type RateLimits,
  type RateLimitTaken,
  type ReleaseSlot,
  type WindowCounts,
} from '../../application/ports/RateLimitCounters.js';

/** A window's counts are dropped this long after its end (a clock set back a little still finds them). */
const WINDOW_GRACE_MS = 60_000;

/** The counts of the windows of one kind (hours or days): per window start, per key. */
class WindowTallies {
  private readonly byStart = new Map<number, { readonly end: number; readonly counts: Map<string, number> }>();

  /** Adds `n` (one by default) to the key's count in the window [start, end), and answers the count. */
  add(keyId: string, start: number, end: number, now: number, n = 1): number {
    let window = this.byStart.get(start);
    if (!window) {
      // A new window: drop those long over (so only a few are ever kept).
      for (const [kept, { end: keptEnd }] of this.byStart) if (keptEnd + WINDOW_GRACE_MS < now) this.byStart.delete(kept);
      this.byStart.set(start, (window = { end, counts: new Map() }));
    }
    const count = (window.counts.get(keyId) ?? 0) + n;
    window.counts.set(keyId, count);
    return count;
  }
}

/**
 * Embedded mode with one API process: counters in this process's memory, lost on
 * restart (which only forgives a client part of a window). Each UTC hour and day is
 * a count of its own, keyed by the window's start, as with the shared stores
 * (`FlexibleRateLimitCounters`); here a count is a plain increment, and a
 * concurrency slot a plain counter (it cannot outlive the process, so it needs no
 * lease). RateLimiterMemory did the same through a promise, a result object and a
 * timer per window and key, a large share of a GET by id's CPU
 * (docs/benchmarks/design-measurements.md, "Rate-limit counters").
 */
export class MemoryRateLimitCounters implements RateLimitCounters {
  private readonly hours: WindowTallies;
  private readonly days: WindowTallies;
  private readonly inFlight: Map<string, number>;

  constructor(
    readonly limits: RateLimits,
    /** The counts of the counters these judge with other limits (`withLimits`); none: counts of their own. */
    sharing?: MemoryRateLimitCounters,
  ) {
    this.hours = sharing?.hours ?? new WindowTallies();
    this.days = sharing?.days ?? new WindowTallies();
    this.inFlight = sharing?.inFlight ?? new Map();
  }

  withLimits(limits: RateLimits): MemoryRateLimitCounters {
    return new MemoryRateLimitCounters(limits, this);
  }

  async consume(keyId: string, now: Date): Promise<RateLimitDecision> {
    const { hourly, daily } = this.count(keyId, now);
    return rateLimitDecision(this.limits, now, hourly, daily);
  }

  /** Counts `n` requests (one by default) of `keyId` at `now` in its hour and its day: the counts with them. */
  count(keyId: string, now: Date, n = 1): WindowCounts {
    const at = now.getTime();
    const hour = utcHourStart(at);
    const day = utcDayStart(at);
    return {
      hourly: this.hours.add(keyId, hour, hour + HOUR_MS, at, n),
      daily: this.days.add(keyId, day, day + DAY_MS, at, n),
    };
  }

  async add(keyId: string, now: Date, n: number): Promise<WindowCounts> {
    return this.count(keyId, now, n);
  }

  async acquire(keyId: string): Promise<ReleaseSlot | null> {
    const release = this.slot(keyId);
    return release && (async () => release());
  }

  take(keyId: string, now: Date): RateLimitTaken {
    const { hourly, daily } = this.count(keyId, now);
    const decision = rateLimitDecision(this.limits, now, hourly, daily);
    return { decision, release: decision.allowed ? this.slot(keyId) : null };
  }

  /** Takes one of the key's slots: its release, or null when all are taken. */
  slot(keyId: string): (() => void) | null {
    const held = this.inFlight.get(keyId) ?? 0;
    if (held >= this.limits.concurrent) return null;
    this.inFlight.set(keyId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(keyId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(keyId, left);
      else this.inFlight.delete(keyId);
    };
  }
}
