import type { EventStore, ResumePointNotInLogError, SubscribeOptions, Subscription } from '../ports/EventStore.js';
import type { Logger } from '../ports/Logger.js';
import { UndecodableEventError } from '../versioning/UndecodableEventError.js';
import type { Clock } from '../../shared/Clock.js';
import type { Position } from '../../shared/Position.js';
import { SubscriptionStatus, type SubscriptionStatusSnapshot } from './SubscriptionStatus.js';

/** What a follower says in its logs: the words of its own log lines. */
export interface FollowerWords {
  /** A batch failed and is offered again (`read-model batch failed; retrying`). */
  readonly retrying: string;
  /** What stopped at an unreadable event (`read models`, `webhook fan-out`). */
  readonly stopped: string;
}

/**
 * The lifecycle every checkpointed subscription to the log shares (the read
 * models' `ProjectionRunner`, the webhook fan-out): its status for /health and
 * /ready, following a source with the status kept up to date, retrying a failing
 * batch, stopping once and for good at an event this release cannot read
 * (`failure`, logged once), and stopping.
 */
export class LogFollower {
  readonly tracker: SubscriptionStatus;
  private subscription: Subscription | null = null;
  private stoppedBy: UndecodableEventError | null = null;
  private readonly stopping = new AbortController();

  constructor(
    readonly name: string,
    private readonly logger: Logger,
    private readonly words: FollowerWords,
    initiallyWaitingFor: string,
    clock?: Clock,
  ) {
    this.tracker = new SubscriptionStatus(name, logger, initiallyWaitingFor, clock);
  }

  /** Where the subscription stands, and what it waits for. */
  get status(): SubscriptionStatusSnapshot {
    return this.tracker.snapshot();
  }

  /** The event it stopped at (everything before it is handled), or null while it follows the log. */
  get failure(): UndecodableEventError | null {
    return this.stoppedBy;
  }

  /** Aborted once `stop()` began (a start still preparing gives up). */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /**
   * Follows `source` from `after`. A failing batch is offered again by the source
   * and logged; an unreadable event stops the follower (`onStopped` is told).
   * `droppedWaitingFor` says what a dropped subscription waits for now.
   */
  follow(
    source: Pick<EventStore, 'subscribeToAll'>,
    options: Pick<SubscribeOptions, 'after' | 'handle' | 'maxBatchSize'> & {
      readonly position: () => Position | null;
      readonly droppedWaitingFor: () => string;
      /** A healthy standby (another instance consumes the persistent group). */
      readonly standby?: boolean;
      readonly onStopped?: () => void;
      /**
       * Told when the source stopped for good: where it would resume is not a point of
       * this log (EventStoreDB put back to an older copy). The status shows it stopped.
       */
      readonly onFailed?: (error: ResumePointNotInLogError) => void;
    },
  ): void {
    if (this.stopping.signal.aborted) return;
    const { tracker } = this;
    this.subscription = source.subscribeToAll({
      after: options.after,
      handle: options.handle,
      onError: (error, attempt) => {
        if (error instanceof UndecodableEventError) return this.fail(error, options.position(), options.onStopped);
        this.logger.error({ err: error, attempt, position: options.position() }, this.words.retrying);
      },
      onConnected: () => tracker.connected(),
      onDropped: (error) => tracker.dropped(error, options.droppedWaitingFor()),
      onFailed: (error) => {
        tracker.stopped();
        options.onFailed?.(error);
      },
      ...(options.standby ? { onWaiting: (what: string) => tracker.standby(what) } : {}),
      ...(options.maxBatchSize !== undefined ? { maxBatchSize: options.maxBatchSize } : {}),
    });
    // Stopped at an unreadable event before the source handed back its subscription.
    if (this.stoppedBy) void this.subscription.stop();
  }

  /** Stops at an event no retry can read: once, logged once. Not awaited: this runs inside the source's retry loop. */
  private fail(error: UndecodableEventError, position: Position | null, onStopped?: () => void): void {
    if (this.stoppedBy) return;
    this.stoppedBy = error;
    this.logger.error(
      { err: error, event: error.event, reason: error.reason, position },
      `${this.words.stopped} stopped: an event of the log cannot be read (add an upcaster for its version, or correct the event), then restart`,
    );
    onStopped?.();
    void this.subscription?.stop();
  }

  /** Stops following; `whenStopped` runs between the subscription's end and the status's (storing a last checkpoint). */
  async stop(whenStopped?: () => Promise<void>): Promise<void> {
    this.stopping.abort();
    await this.subscription?.stop();
    this.subscription = null;
    await whenStopped?.();
    this.tracker.stopped();
  }
}
