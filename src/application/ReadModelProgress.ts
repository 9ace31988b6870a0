import { comparePositions, type Position } from '../shared/Position.js';

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

/**
 * Progress of read models kept by another process (an API instance beside one
 * projector, on MongoDB): follows the projector's checkpoint, polled only while
 * someone waits.
 */
export class CheckpointProgress implements ReadModelProgress {
  private current: Position | null = null;
  private readonly waiters = new PositionWaiters();
  private polling: NodeJS.Timeout | null = null;

  constructor(
    private readonly load: () => Promise<Position | null>,
    private readonly everyMs = 20,
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

  private poll(): void {
    if (this.polling) return;
    this.polling = setTimeout(async () => {
      this.polling = null;
      try {
        await this.refresh();
      } finally {
        if (this.waiters.size > 0) this.poll();
      }
    }, this.everyMs);
  }

  stop(): void {
    if (this.polling) clearTimeout(this.polling);
    this.polling = null;
    this.waiters.abandon();
  }
}
