import type { Logger } from '../application/ports/Logger.js';
import type { DeliveryAttempt, DeliveryQueue, QueueHealth, QueueStatus, WebhookOutbox } from '../application/ports/WebhookOutbox.js';
import type { Clock } from '../shared/Clock.js';
import { nextHealth, type HealthChange, type PausePolicy, type RowResult } from './queueHealthPolicy.js';

/** A subscription's new delivery status, to be recorded in the log. */
export type DeliveryStatusChange =
  | { readonly status: 'paused' | 'disabled'; readonly failingSince: string }
  | { readonly status: 'active' };

/** One dispatcher turn's view of its queue: its health as the turn last stored (or read) it. */
export interface Turn {
  readonly queue: DeliveryQueue;
  health: QueueHealth;
}

export interface QueueHealthKeeperDeps {
  readonly outbox: Pick<WebhookOutbox, 'setHealth' | 'health'>;
  /** Appends `WebhookPaused`, `WebhookDisabled` or `WebhookEnabled {recovered}` (see `WebhookDispatcherDeps.announce`). */
  readonly announce?: (queue: { readonly subscriptionId: string; readonly companyId: string }, change: DeliveryStatusChange) => Promise<void>;
  /** Absent: receivers are never paused. */
  readonly pausing?: PausePolicy;
  readonly logger: Logger;
  readonly clock: Clock;
}

/** Pause of a disabling whose event could not be appended, when no pausing policy says how long. */
const FALLBACK_HOLD_MS = 1000;

export const withoutVersion = ({ version: _version, ...health }: QueueHealth): HealthChange => health;

/** What the log is told of a new status. */
const toStatusChange = (health: HealthChange): DeliveryStatusChange => {
  const status: QueueStatus = health.status;
  if (status === 'active') return { status };
  return { status, failingSince: health.failingSince ?? new Date(0).toISOString() };
};

/**
 * The dispatcher's keeper of each queue's health: what an attempt makes of it
 * (`queueHealthPolicy`), recorded in the log when its status changes, then stored
 * beside the queue in the outbox.
 */
export class QueueHealthKeeper {
  constructor(private readonly deps: QueueHealthKeeperDeps) {}

  /** The queue's health after an attempt (null: unchanged, or no pausing configured). */
  after(turn: Turn, result: RowResult, attempt: DeliveryAttempt, now: Date): HealthChange | null {
    return this.deps.pausing ? nextHealth(turn.health, result, new Date(attempt.at), now, this.deps.pausing) : null;
  }

  /** Stores what an attempt makes of the queue's health, when it changes anything. */
  async afterAttempt(turn: Turn, result: RowResult, attempt: DeliveryAttempt, now: Date): Promise<void> {
    const change = this.after(turn, result, attempt, now);
    if (change) await this.store(turn, change);
  }

  /**
   * Records a new status in the log first (`announce`), then stores the health with
   * the status the log now has. Refused by the outbox when its health moved on since
   * the turn read it (the company enabled the subscription meanwhile): that one
   * stands, and the turn goes on with it.
   */
  async store(turn: Turn, change: HealthChange): Promise<void> {
    const { subscriptionId, companyId } = turn.queue;
    const next = change.status === change.loggedStatus ? change : await this.announced(turn, change);
    if (await this.deps.outbox.setHealth(subscriptionId, next, turn.health.version)) {
      if (next.status !== turn.health.status) this.logStatus(turn, next);
      turn.health = { ...next, version: turn.health.version + 1 };
    } else {
      turn.health = (await this.deps.outbox.health(subscriptionId)) ?? turn.health;
      this.deps.logger.info({ subscriptionId, companyId }, 'webhook subscription changed meanwhile; its health is kept as it is');
    }
  }

  /**
   * The change with the log's status once its event is appended. When that fails,
   * the status stays unrecorded (tried again at the queue's next turn); a receiver is
   * only disabled once the log says so: until then it stays paused, held for the
   * first pause's length.
   */
  private async announced(turn: Turn, change: HealthChange): Promise<HealthChange> {
    const announce = this.deps.announce;
    if (!announce) return { ...change, loggedStatus: change.status };
    try {
      await announce(turn.queue, toStatusChange(change));
      return { ...change, loggedStatus: change.status };
    } catch (error) {
      this.deps.logger.error(
        { err: error, subscriptionId: turn.queue.subscriptionId, status: change.status },
        'webhook subscription: cannot record its new delivery status in the log; will try again',
      );
      if (change.status !== 'disabled') return change;
      const holdMs = this.deps.pausing?.pauseDelaysMs[0] ?? FALLBACK_HOLD_MS;
      return { ...change, status: 'paused', holdUntil: new Date(this.deps.clock.now().getTime() + holdMs).toISOString() };
    }
  }

  private logStatus(turn: Turn, health: HealthChange): void {
    const { subscriptionId, companyId } = turn.queue;
    const fields = { subscriptionId, companyId, failingSince: health.failingSince, holdUntil: health.holdUntil };
    if (health.status === 'paused') this.deps.logger.warn(fields, 'webhook receiver keeps failing: deliveries paused');
    else if (health.status === 'disabled') this.deps.logger.warn(fields, 'webhook receiver failed for too long: deliveries disabled until the company enables them');
    else this.deps.logger.info(fields, 'webhook receiver answered again: deliveries resumed');
  }
}
