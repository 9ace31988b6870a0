/**
 * A background loop whose store calls are failing right now. The errors
 * themselves are logged by the loop, never shown here: a driver's message can
 * name hosts, and `/ready` needs no key.
 */
export interface LoopFailure {
  /** When the current run of failures began (ISO 8601). */
  readonly since: string;
  readonly failures: number;
}

/**
 * Which background loops of this process (following the projector's checkpoint,
 * the webhook dispatcher, the delivery-log retention, rate-limit lease releases)
 * are failing right now, for `/ready`. A loop reports each failure and each
 * success; it keeps running and retrying with backoff, so a failing store is
 * never fatal, only visible.
 */
export class LoopHealth {
  private readonly failing = new Map<string, LoopFailure>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  failed(loop: string): LoopFailure {
    const previous = this.failing.get(loop);
    const failure: LoopFailure = {
      since: previous?.since ?? this.now().toISOString(),
      failures: (previous?.failures ?? 0) + 1,
    };
    this.failing.set(loop, failure);
    return failure;
  }

  succeeded(loop: string): void {
    this.failing.delete(loop);
  }

  snapshot(): Readonly<Record<string, LoopFailure>> {
    return Object.fromEntries(this.failing);
  }
}
