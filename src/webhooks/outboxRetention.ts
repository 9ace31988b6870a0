import type { LoopHealth } from '../application/subscriptions/LoopHealth.js';
import { PeriodicRun } from '../application/subscriptions/PeriodicRun.js';
import type { Logger } from '../application/ports/Logger.js';
import type { WebhookOutbox } from '../application/ports/WebhookOutbox.js';
import { systemClock, type Clock } from '../shared/Clock.js';

const DAY_MS = 86_400_000;

export interface OutboxRetentionDeps {
  readonly outbox: Pick<WebhookOutbox, 'pruneCompleted'>;
  /** `WEBHOOK_LOG_RETENTION_DAYS`: delivered and failed rows are kept this long after they became final. */
  readonly retentionDays: number;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Rows deleted by one statement; default 500 (each batch holds the store's write lock briefly). */
  readonly batchSize?: number;
  /** Batches in one run; default 200 (at most 100,000 rows a run: a large backlog is worked off over several runs). */
  readonly maxBatchesPerRun?: number;
  /** Time between runs; default 10 minutes. The first run starts `firstRunAfterMs` (default 30 s) after `start()`. */
  readonly intervalMs?: number;
  readonly firstRunAfterMs?: number;
  /** Told how many rows each run pruned (metrics). */
  readonly onPruned?: (rows: number) => void;
  /** Told of failing and succeeding runs, for `/ready` (loop `webhook-retention`). */
  readonly health?: LoopHealth;
}

/**
 * The webhook delivery log's retention, run in the dispatcher's process: every
 * `intervalMs`, deletes the `delivered` and `failed` outbox rows that became
 * final more than `retentionDays` ago, in batches of `batchSize` (at most
 * `maxBatchesPerRun` per run), yielding to other work between batches. Pending
 * rows are never pruned. Several processes running it at once only share the work.
 */
/** The loop name under which failing runs show in `/ready`. */
export const RETENTION_LOOP = 'webhook-retention';

export class OutboxRetention {
  private readonly clock: Clock;
  private readonly batchSize: number;
  private readonly maxBatches: number;
  private readonly periodic: PeriodicRun<number>;

  constructor(private readonly deps: OutboxRetentionDeps) {
    if (!(deps.retentionDays > 0)) throw new RangeError('retentionDays must be positive');
    this.clock = deps.clock ?? systemClock;
    this.batchSize = Math.max(1, Math.floor(deps.batchSize ?? 500));
    this.maxBatches = Math.max(1, Math.floor(deps.maxBatchesPerRun ?? 200));
    this.periodic = new PeriodicRun({
      run: () => this.prune(),
      firstAfterMs: deps.firstRunAfterMs ?? 30_000,
      everyMs: deps.intervalMs ?? 600_000,
      loop: RETENTION_LOOP,
      logger: deps.logger,
      failedMessage: 'webhook delivery log: pruning failed; retried at the next run',
      ...(deps.health ? { health: deps.health } : {}),
    });
  }

  /** Where a run cuts: rows final before this instant go. */
  cutoff(): Date {
    return new Date(this.clock.now().getTime() - this.deps.retentionDays * DAY_MS);
  }

  /** One run: prunes in bounded batches until nothing older is left, the batch limit is reached or stop() was called. */
  runOnce(): Promise<number> {
    return this.periodic.runOnce();
  }

  private async prune(): Promise<number> {
    const before = this.cutoff();
    let pruned = 0;
    for (let batch = 0; batch < this.maxBatches && !this.periodic.stopped; batch++) {
      const deleted = await this.deps.outbox.pruneCompleted(before, this.batchSize);
      pruned += deleted;
      if (deleted < this.batchSize) break;
      // Let requests, deliveries and the fan-out in between the batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (pruned > 0) {
      this.deps.logger.info({ pruned, before: before.toISOString(), retentionDays: this.deps.retentionDays }, 'webhook delivery log pruned');
    }
    this.deps.onPruned?.(pruned);
    return pruned;
  }

  /** Runs periodically until stop(); timers do not keep the process alive. */
  start(): void {
    this.periodic.start();
  }

  /** Stops the timer; a run in flight finishes its current batch. */
  stop(): Promise<void> {
    return this.periodic.stop();
  }
}
