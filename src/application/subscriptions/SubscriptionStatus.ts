import type { Logger } from '../ports/Logger.js';
import { systemClock, type Clock } from '../../shared/Clock.js';

/**
 * Where a subscription to the log stands:
 * - `starting`: not connected yet (the start may be waiting for it);
 * - `connected`: the server accepted it and events flow;
 * - `reconnecting`: its connection failed; it resubscribes by itself, with backoff;
 * - `standby`: healthy but idle (another instance consumes the persistent group);
 * - `stopped`.
 */
export type SubscriptionState = 'starting' | 'connected' | 'reconnecting' | 'standby' | 'stopped';

export interface SubscriptionStatusSnapshot {
  readonly state: SubscriptionState;
  /** What it waits for, in words, while it is not connected; null when connected or stopped. */
  readonly waitingFor: string | null;
  /** When it entered this state (ISO 8601 UTC). */
  readonly since: string;
  /** Failed attempts since it was last connected. */
  readonly failures: number;
  /** The last failure's message (never a stack), or null. */
  readonly lastError: string | null;
}

/** Whether a subscription in this state is doing its work (or is a healthy standby). */
export const isWorking = (state: SubscriptionState): boolean => state === 'connected' || state === 'standby';

/** Failures logged one by one at first, then every 10th, so a long outage stays visible without flooding the log. */
const shouldLog = (failures: number): boolean => failures <= 3 || failures % 10 === 0;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The observable state of one subscription (`read-models`, `webhook-fan-out`),
 * fed by the subscription's hooks (`SubscribeOptions.onConnected`, `onDropped`,
 * `onWaiting`), read by /health and /ready, and logged as it changes: every drop
 * (the first ones one by one, then every 10th, as errors from the 5th on), the
 * reconnect with how long it was down, and what a start is waiting for.
 */
export class SubscriptionStatus {
  private state: SubscriptionState = 'starting';
  private waitingFor: string | null;
  private since: Date;
  private failures = 0;
  private lastError: string | null = null;
  private readonly clock: Clock;

  constructor(
    readonly name: string,
    private readonly logger: Logger,
    initiallyWaitingFor: string,
    clock: Clock = systemClock,
  ) {
    this.clock = clock;
    this.waitingFor = initiallyWaitingFor;
    this.since = clock.now();
  }

  snapshot(): SubscriptionStatusSnapshot {
    return {
      state: this.state,
      waitingFor: this.waitingFor,
      since: this.since.toISOString(),
      failures: this.failures,
      lastError: this.lastError,
    };
  }

  /** Not connected yet, and why (logged once per distinct reason). */
  waiting(what: string): void {
    if (this.state === 'stopped') return;
    if (this.waitingFor !== what || this.state !== 'starting') {
      this.logger.info({ subscription: this.name, waitingFor: what }, `${this.name}: waiting for ${what}`);
    }
    this.move(this.state === 'reconnecting' ? 'reconnecting' : 'starting', what);
  }

  /** The server accepted the subscription: events flow. */
  connected(): void {
    if (this.state === 'stopped' || this.state === 'connected') return;
    if (this.failures > 0) {
      this.logger.info(
        { subscription: this.name, failures: this.failures, downMs: this.clock.now().getTime() - this.since.getTime() },
        `${this.name}: subscribed again after ${this.failures} failed attempt(s)`,
      );
    } else {
      this.logger.info({ subscription: this.name }, `${this.name}: subscribed`);
    }
    this.failures = 0;
    this.lastError = null;
    this.move('connected', null);
  }

  /** The connection failed (or could not be made); the subscription retries by itself. */
  dropped(error: unknown, waitingFor: string): void {
    if (this.state === 'stopped') return;
    this.failures += 1;
    this.lastError = messageOf(error);
    if (this.state !== 'reconnecting' && this.state !== 'starting') this.since = this.clock.now();
    if (shouldLog(this.failures)) {
      const fields = { subscription: this.name, err: error, failures: this.failures, waitingFor };
      const message =
        this.state === 'starting'
          ? `${this.name}: cannot subscribe yet (failure ${this.failures}); retrying; waiting for ${waitingFor}`
          : `${this.name}: subscription dropped (failure ${this.failures}); resubscribing`;
      if (this.failures >= 5) this.logger.error(fields, message);
      else this.logger.warn(fields, message);
    }
    this.state = this.state === 'starting' ? 'starting' : 'reconnecting';
    this.waitingFor = waitingFor;
  }

  /** Healthy but idle: another instance does the work; this one takes over when it stops. */
  standby(what: string): void {
    if (this.state === 'stopped' || this.state === 'standby') return;
    this.logger.info({ subscription: this.name, waitingFor: what }, `${this.name}: standing by; waiting for ${what}`);
    this.failures = 0;
    this.lastError = null;
    this.move('standby', what);
  }

  stopped(): void {
    this.move('stopped', null);
  }

  private move(state: SubscriptionState, waitingFor: string | null): void {
    if (state !== this.state) this.since = this.clock.now();
    this.state = state;
    this.waitingFor = waitingFor;
  }
}
