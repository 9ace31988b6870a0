import {
  rateLimitDecision,
  utcDayStart,
  utcHourStart,
  type RateLimitAdmission,
  type RateLimitCounters,
  type RateLimitDecision,
  type RateLimits,
  type ReleaseSlot,
  type WindowCounts,
} from '../ports/RateLimitCounters.js';
import { StoreUnavailableError } from '../ports/StoreUnavailableError.js';

/** How the counts are batched and how long a process keeps a slot it is not using. */
export interface BatchingOptions {
  /**
   * Requests a process counts in its memory before it adds them to the store (at
   * most; sooner after `flushMs`). The store's count of a window may be behind by
   * this many per process, so the windows may let through at most (processes ×
   * batch) requests over their limits. 1: every request waits for its count.
   */
  readonly batch: number;
  /** A batch not full is added this long after its first request (default 100 ms). */
  readonly flushMs?: number;
  /** A slot given back stays this process's, for its next request of the key, this long (default 100 ms). */
  readonly idleSlotMs?: number;
  /** Lifetime of the store's slots in seconds (its lease): a slot older than half of it is not used again. */
  readonly leaseSeconds: number;
}

const DEFAULT_FLUSH_MS = 100;

/**
 * A failure of the store, as the request that waited for it gets it: one the store
 * did not say passes (a connection lost mid-statement, in a failover) is one too for
 * counts, which may be lost or made twice without harm: 503 with Retry-After, never 500.
 */
const unavailable = (error: unknown): StoreUnavailableError =>
  error instanceof StoreUnavailableError ? error : new StoreUnavailableError('busy', 1, { cause: error });
const DEFAULT_IDLE_SLOT_MS = 100;

/** A request whose count waits for the next add to the store, at its place in that add. */
interface Waiting {
  readonly offset: number;
  readonly resolve: (counts: WindowCounts) => void;
  readonly reject: (error: unknown) => void;
}

/** A slot of the store this process holds and is not using. */
interface IdleSlot {
  readonly release: ReleaseSlot;
  readonly takenAt: number;
  readonly idleSince: number;
}

/** One key's state in one hour and day. */
interface KeyState {
  readonly hourStart: number;
  readonly dayStart: number;
  /** The store's counts after this process's last add (others' requests since are not in them); null before the first. */
  known: WindowCounts | null;
  /** Requests counted here and not added yet. */
  pending: number;
  /** Requests whose answer waits for the next add (their counts must be the store's). */
  waiting: Waiting[];
  flushing: Promise<void> | null;
  timer: NodeJS.Timeout | null;
}

/**
 * Rate-limit counters that ask a shared store (PostgreSQL's table) only now and
 * then, instead of on every request:
 *
 * - **Windows.** A process counts its requests in memory and adds them to the store
 *   together (`add`), after `batch` requests or `flushMs`. Its decisions add its own
 *   pending requests to the counts the store answered its last add; what other
 *   processes counted since is missing, so all processes together may let through at
 *   most (processes × batch) requests over a window's limit. Near a limit (fewer
 *   than `batch` left) and for a key's first request in a window, each request waits
 *   for its count from the store; once a window is over its limit, refusals are
 *   counted in batches (the store's counts only grow within a window).
 * - **Concurrency, exact.** A request runs only on a slot of the store this process
 *   holds. A slot given back stays with the process for `idleSlotMs`, for its next
 *   request of the key, then goes back to the store; a slot past half its lease is
 *   given back at once. Never more requests run than the store has slots.
 */
export class BatchedRateLimitCounters implements RateLimitCounters {
  private readonly keys = new Map<string, KeyState>();
  private readonly idle = new Map<string, IdleSlot[]>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly addToStore: (keyId: string, now: Date, n: number) => Promise<WindowCounts>;
  private readonly flushMs: number;
  private readonly idleSlotMs: number;
  private closed = false;

  constructor(
    private readonly store: RateLimitCounters,
    private readonly options: BatchingOptions,
  ) {
    if (!store.add) throw new Error('batched rate-limit counters need a store that adds several requests at once');
    if (!Number.isInteger(options.batch) || options.batch < 1) throw new Error('the batch of rate-limit counts is a whole number of at least 1');
    this.addToStore = store.add.bind(store);
    this.flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
    this.idleSlotMs = options.idleSlotMs ?? DEFAULT_IDLE_SLOT_MS;
  }

  get limits(): RateLimits {
    return this.store.limits;
  }

  withLimits(limits: RateLimits): BatchedRateLimitCounters {
    return new BatchedRateLimitCounters(this.store.withLimits(limits), this.options);
  }

  async consume(keyId: string, now: Date): Promise<RateLimitDecision> {
    const counts = await this.count(keyId, now);
    return rateLimitDecision(this.limits, now, counts.hourly, counts.daily);
  }

  async acquire(keyId: string): Promise<ReleaseSlot | null> {
    const idle = this.idle.get(keyId);
    const now = Date.now();
    while (idle && idle.length > 0) {
      const slot = idle.pop()!;
      if (idle.length === 0) this.idle.delete(keyId);
      if (this.fresh(slot.takenAt, now)) return this.keeping(keyId, slot.release, slot.takenAt);
      void slot.release().catch(() => undefined);
    }
    const release = await this.store.acquire(keyId).catch((error: unknown) => {
      throw unavailable(error);
    });
    return release && this.keeping(keyId, release, now);
  }

  async admit(keyId: string, now: Date): Promise<RateLimitAdmission> {
    const decision = await this.consume(keyId, now);
    if (!decision.allowed) return { decision, release: null };
    return { decision, release: await this.acquire(keyId) };
  }

  /** Adds what is pending to the store, and gives the idle slots back. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    for (const [keyId, state] of this.keys) {
      if (state.timer) clearTimeout(state.timer);
      await state.flushing?.catch(() => undefined);
      if (state.pending > 0) await this.flush(state, keyId).catch(() => undefined);
    }
    const idle = [...this.idle.values()].flat();
    this.idle.clear();
    await Promise.all(idle.map((slot) => slot.release().catch(() => undefined)));
    await this.store.close?.();
  }

  /** The key's counts with this request: from memory, or (a first request, or near a limit) from the store. */
  private count(keyId: string, now: Date): WindowCounts | Promise<WindowCounts> {
    const state = this.stateOf(keyId, now.getTime());
    const { known } = state;
    const { hourly, daily } = this.limits;
    if (known !== null && state.waiting.length === 0) {
      const over = known.hourly >= hourly || known.daily >= daily;
      const room = Math.min(hourly - known.hourly, daily - known.daily) - state.pending;
      if (over || room > this.options.batch) {
        state.pending += 1;
        const counts = { hourly: known.hourly + state.pending, daily: known.daily + state.pending };
        this.schedule(state, keyId, state.pending >= this.options.batch);
        return counts;
      }
    }
    // Its count from the store: it joins the next add, at its place in it.
    return new Promise<WindowCounts>((resolve, reject) => {
      state.pending += 1;
      state.waiting.push({ offset: state.pending, resolve, reject });
      this.schedule(state, keyId, true);
    });
  }

  private stateOf(keyId: string, at: number): KeyState {
    const hourStart = utcHourStart(at);
    const dayStart = utcDayStart(at);
    let state = this.keys.get(keyId);
    if (!state || state.hourStart !== hourStart || state.dayStart !== dayStart) {
      // A new window: what the old one still has pending is added on its own.
      if (state && state.pending > 0) this.schedule(state, keyId, true);
      state = { hourStart, dayStart, known: null, pending: 0, waiting: [], flushing: null, timer: null };
      this.keys.set(keyId, state);
    }
    return state;
  }

  /** Adds the key's pending requests now (`now`), or once `flushMs` has passed. */
  private schedule(state: KeyState, keyId: string, now: boolean): void {
    if (this.closed && !now) return;
    if (now) {
      if (state.timer) clearTimeout(state.timer);
      state.timer = null;
      void this.flush(state, keyId).catch(() => undefined);
    } else if (!state.timer) {
      state.timer = setTimeout(() => {
        state.timer = null;
        void this.flush(state, keyId).catch(() => undefined);
      }, this.flushMs);
      state.timer.unref();
    }
  }

  /**
   * One add of the key's pending requests to the store at a time; those that come
   * meanwhile go with the next. The requests that wait get the store's counts at
   * their place; a failed add leaves its requests pending (the waiting ones fail).
   */
  private async flush(state: KeyState, keyId: string): Promise<void> {
    const before = state.flushing;
    if (before) {
      await before.catch(() => undefined);
      // Another add started meanwhile takes what is pending.
      if (state.pending === 0 || state.flushing !== null) return;
    }
    const n = state.pending;
    if (n === 0) return;
    const waiting = state.waiting;
    state.pending = 0;
    state.waiting = [];
    // Any time in the key's hour and day names its windows.
    const at = new Date(Math.max(state.hourStart, state.dayStart));
    const adding = this.addToStore(keyId, at, n).then(
      (counts) => {
        state.known = counts;
        for (const { offset, resolve } of waiting) resolve({ hourly: counts.hourly - n + offset, daily: counts.daily - n + offset });
      },
      (error: unknown) => {
        // The requests that were answered from memory stay counted for the next add.
        state.pending += n - waiting.length;
        const failure = unavailable(error);
        for (const { reject } of waiting) reject(failure);
        throw failure;
      },
    );
    state.flushing = adding.finally(() => {
      state.flushing = null;
      if (state.pending > 0) this.schedule(state, keyId, state.waiting.length > 0 || state.pending >= this.options.batch);
    });
    await state.flushing;
  }

  private fresh(takenAt: number, now: number): boolean {
    return now - takenAt < (this.options.leaseSeconds * 1000) / 2;
  }

  /** The release of a slot held here: kept idle for the key's next request (or given back when old). */
  private keeping(keyId: string, release: ReleaseSlot, takenAt: number): ReleaseSlot {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const now = Date.now();
      if (this.closed || !this.fresh(takenAt, now)) return release();
      const idle = this.idle.get(keyId);
      const slot = { release, takenAt, idleSince: now };
      if (idle) idle.push(slot);
      else this.idle.set(keyId, [slot]);
      this.sweepLater();
    };
  }

  private sweepLater(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setTimeout(() => this.sweep(), this.idleSlotMs);
    this.sweepTimer.unref();
  }

  /** Gives back the slots idle for `idleSlotMs` or more. */
  private sweep(): void {
    this.sweepTimer = null;
    const now = Date.now();
    for (const [keyId, slots] of this.idle) {
      const keep = slots.filter((slot) => now - slot.idleSince < this.idleSlotMs);
      for (const slot of slots) if (!keep.includes(slot)) void slot.release().catch(() => undefined);
      if (keep.length > 0) this.idle.set(keyId, keep);
      else this.idle.delete(keyId);
    }
    if (this.idle.size > 0) this.sweepLater();
  }
}
