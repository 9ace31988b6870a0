import { comparePositions, type Position } from '../../shared/Position.js';
import type { LoopHealth } from './LoopHealth.js';
import type { Logger } from '../ports/Logger.js';

/** How far the read models have applied the log; gives read-your-writes. */
export interface ReadModelProgress {
  /** Last log position applied to every read model (null: nothing yet). */
  readonly position: Position | null;
  /** Resolves true once `position` is applied, false when `timeoutMs` passes first. */
  waitFor(position: Position, timeoutMs: number): Promise<boolean>;
}

interface Waiter {
  readonly position: Position;
  readonly resolve: (reached: boolean) => void;
  readonly timer: NodeJS.Timeout;
}

/** Waiters on a position, released as it advances. */
export class PositionWaiters {
  private waiters: Waiter[] = [];

  get size(): number {
    return this.waiters.length;
  }

  add(position: Position, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Releases every waiter at or before `reached`. */
  release(reached: Position): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (comparePositions(waiter.position, reached) <= 0) {
        clearTimeout(waiter.timer);
        waiter.resolve(true);
      } else still.push(waiter);
    }
    this.waiters = still;
  }

  /** Ends every wait (false), e.g. at shutdown. */
  abandon(): void {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
    this.waiters = [];
  }
}

/** Where a follower tells of its checkpoint reads failing and recovering. */
export interface FollowerReports {
  readonly health?: LoopHealth;
  readonly logger?: Logger;
}

/** The longest pause between checkpoint reads while they fail. */
const MAX_POLL_BACKOFF_MS = 2000;

/**
 * Progress of read models kept by another process (an API instance beside one
 * projector): follows the projector's checkpoint, polled only while someone
 * waits. A failing read (a store's network error, an election) is logged, shown
 * in `/ready` and retried with backoff; it never ends the process.
 */
export class CheckpointProgress implements ReadModelProgress {
  private current: Position | null = null;
  private readonly waiters = new PositionWaiters();
  private polling: NodeJS.Timeout | null = null;
  private failures = 0;
  private checking = false;
  private checkAgain = false;

  constructor(
    private readonly load: () => Promise<Position | null>,
    private readonly everyMs = 20,
    private readonly reports: FollowerReports = {},
  ) {}

  get position(): Position | null {
    return this.current;
  }

  /** Reads the checkpoint now. */
  async refresh(): Promise<Position | null> {
    const loaded = await this.load();
    if (loaded !== null && (this.current === null || comparePositions(loaded, this.current) > 0)) {
      this.current = loaded;
      this.waiters.release(loaded);
    }
    return this.current;
  }

  async waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    if (this.current !== null && comparePositions(position, this.current) <= 0) return true;
    const reached = this.waiters.add(position, timeoutMs);
    this.poll();
    return reached;
  }

  /**
   * The projector says its checkpoint moved (API_WORKERS' supervisor relays it):
   * while a write waits, the checkpoint is read now instead of at the next poll.
   * Polling goes on as before; this only shortens the wait.
   */
  lookNow(): void {
    if (this.waiters.size === 0 || this.failures > 0) return;
    if (this.polling) clearTimeout(this.polling);
    this.polling = null;
    this.check();
  }

  private poll(): void {
    if (this.polling) return;
    const delayMs = this.failures === 0 ? this.everyMs : Math.min(MAX_POLL_BACKOFF_MS, this.everyMs * 2 ** this.failures);
    this.polling = setTimeout(() => {
      this.polling = null;
      this.check();
    }, delayMs);
  }

  /** Reads the checkpoint (one read at a time: asked during one, it reads again after it), then polls on while someone waits. */
  private check(): void {
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = true;
    void this.refresh()
      .then(
        () => this.recovered(),
        (error: unknown) => this.failed(error),
      )
      .finally(() => {
        this.checking = false;
        const again = this.checkAgain;
        this.checkAgain = false;
        if (this.waiters.size === 0) return;
        if (again && this.failures === 0) this.lookNow();
        else this.poll();
      });
  }

  private failed(error: unknown): void {
    this.failures += 1;
    const failure = this.reports.health?.failed(FOLLOWER_LOOP);
    this.reports.logger?.warn({ err: error, failures: failure?.failures ?? this.failures }, "cannot read the projector's checkpoint; retrying");
  }

  private recovered(): void {
    if (this.failures > 0) this.reports.logger?.info({ failures: this.failures }, "reading the projector's checkpoint again");
    this.failures = 0;
    this.reports.health?.succeeded(FOLLOWER_LOOP);
  }

  stop(): void {
    if (this.polling) clearTimeout(this.polling);
    this.polling = null;
    this.waiters.abandon();
  }
}

/** The loop name under which a follower's failures show in `/ready`. */
export const FOLLOWER_LOOP = 'read-model-checkpoint';
