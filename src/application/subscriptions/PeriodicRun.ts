import type { Logger } from '../ports/Logger.js';
import type { LoopHealth } from './LoopHealth.js';

export interface PeriodicRunOptions<T> {
  /** The work of one run. */
  readonly run: () => Promise<T>;
  /** The first run, this long after `start()`. */
  readonly firstAfterMs: number;
  /** Then one run every this long, counted from the end of the one before. */
  readonly everyMs: number;
  /** The loop name under which failing runs show in `/ready`. */
  readonly loop: string;
  readonly health?: LoopHealth;
  readonly logger: Logger;
  /** The warning logged when a run fails (the next run tries again). */
  readonly failedMessage: string;
}

/**
 * Background work run now and then (the delivery log's retention, the end of
 * deleted contacts' restore periods): a timer that does not keep the process
 * alive, one run at a time (a run asked for while one is going is that one),
 * each failure logged and shown in `/ready` until a run succeeds, and a stop
 * that waits for the run in flight. A run checks `stopped` between its batches.
 */
export class PeriodicRun<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<T> | null = null;
  private isStopped = false;

  constructor(private readonly options: PeriodicRunOptions<T>) {}

  get stopped(): boolean {
    return this.isStopped;
  }

  /** One run now, or the one in flight. */
  runOnce(): Promise<T> {
    this.running ??= this.options.run().finally(() => (this.running = null));
    return this.running;
  }

  /** Runs periodically until stop(). */
  start(): void {
    if (this.timer || this.isStopped) return;
    this.schedule(this.options.firstAfterMs);
  }

  /** Stops the timer; a run in flight finishes the batch it is on. */
  async stop(): Promise<void> {
    this.isStopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.isStopped) return;
    const { loop, health, logger, failedMessage, everyMs } = this.options;
    this.timer = setTimeout(() => {
      this.runOnce()
        .then(
          () => health?.succeeded(loop),
          (error: unknown) => {
            health?.failed(loop);
            logger.warn({ err: error }, failedMessage);
          },
        )
        .finally(() => this.schedule(everyMs));
    }, delayMs);
    this.timer.unref();
  }
}
