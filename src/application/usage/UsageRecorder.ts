import type { Logger } from '../ports/Logger.js';
import { HOUR_MS, utcHourStart } from '../ports/RateLimitCounters.js';
import type { UsageCounters, UsageRow } from '../ports/UsageCounters.js';
import type { Clock } from '../../shared/Clock.js';

/** How often counts are written, by default: the console's figures are at most this late. */
export const USAGE_FLUSH_EVERY_MS = 5_000;

/** Hours kept: the console shows the last 24 hours and today; a week leaves room for looking back. */
export const USAGE_RETENTION_MS = 7 * 24 * HOUR_MS;

/** Rows kept in memory while the store refuses them; beyond, new counts are dropped (and said so in the log). */
const MAX_PENDING_ROWS = 100_000;

interface PendingRow {
  readonly companyId: string;
  readonly hour: number;
  readonly keyId: string | null;
  requests: number;
  limited: number;
  deliveriesOk: number;
  deliveriesFailed: number;
}

/**
 * Counts usage in memory and writes it to the usage counters every few
 * seconds, so that a request pays for a map lookup and two additions, never for
 * a write (the API's hot path: the rate-limit middleware and the dispatcher's
 * attempt hook call it). A failed write keeps its counts for the next one; a
 * stop writes what is left. Counts of a process killed outright are lost: the
 * figures are for the console's charts, not for billing.
 */
export class UsageRecorder {
  private pending = new Map<string, PendingRow>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private lastPruneMs = 0;
  private dropped = 0;

  constructor(
    private readonly deps: {
      readonly counters: UsageCounters;
      readonly clock: Clock;
      readonly logger: Logger;
      readonly flushEveryMs?: number;
    },
  ) {}

  /** One request of an API key of the company; `limited`: answered 429 by the rate limits. */
  request(companyId: string, keyId: string, limited: boolean): void {
    const row = this.rowOf(companyId, keyId);
    if (!row) return;
    row.requests += 1;
    if (limited) row.limited += 1;
  }

  /** One delivery attempt to a receiver of the company: `ok` when it answered 200. */
  delivery(companyId: string, ok: boolean): void {
    const row = this.rowOf(companyId, null);
    if (!row) return;
    if (ok) row.deliveriesOk += 1;
    else row.deliveriesFailed += 1;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.deps.flushEveryMs ?? USAGE_FLUSH_EVERY_MS);
    this.timer.unref();
  }

  /** Writes what was counted since the last write (one write at a time; a call during one waits for it, then writes). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.write().finally(() => (this.flushing = null));
    await this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private rowOf(companyId: string, keyId: string | null): PendingRow | null {
    const hour = utcHourStart(this.deps.clock.now().getTime());
    const key = `${hour}|${companyId}|${keyId ?? ''}`;
    let row = this.pending.get(key);
    if (!row) {
      if (this.pending.size >= MAX_PENDING_ROWS) {
        this.dropped += 1;
        return null;
      }
      row = { companyId, hour, keyId, requests: 0, limited: 0, deliveriesOk: 0, deliveriesFailed: 0 };
      this.pending.set(key, row);
    }
    return row;
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    if (batch.size > 0) {
      this.pending = new Map();
      const rows: UsageRow[] = [...batch.values()].map((row) => ({ ...row, hour: new Date(row.hour) }));
      try {
        await this.deps.counters.add(rows);
      } catch (error) {
        this.putBack(batch);
        this.deps.logger.warn({ err: error, rows: rows.length }, 'usage counters could not be written; kept for the next write');
      }
    }
    if (this.dropped > 0) {
      this.deps.logger.warn({ dropped: this.dropped }, 'usage counts dropped: too many kept while the store refused them');
      this.dropped = 0;
    }
    await this.pruneHourly();
  }

  /** Counts of a failed write, added back under what was counted meanwhile. */
  private putBack(batch: Map<string, PendingRow>): void {
    for (const [key, row] of batch) {
      const now = this.pending.get(key);
      if (now) {
        now.requests += row.requests;
        now.limited += row.limited;
        now.deliveriesOk += row.deliveriesOk;
        now.deliveriesFailed += row.deliveriesFailed;
      } else if (this.pending.size < MAX_PENDING_ROWS) this.pending.set(key, row);
      else this.dropped += 1;
    }
  }

  private async pruneHourly(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    if (now - this.lastPruneMs < HOUR_MS) return;
    this.lastPruneMs = now;
    try {
      await this.deps.counters.prune(new Date(utcHourStart(now) - USAGE_RETENTION_MS));
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'old usage counters could not be pruned; trying again in an hour');
    }
  }
}
