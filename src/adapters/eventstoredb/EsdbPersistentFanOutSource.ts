import {
  DISPATCH_TO_SINGLE,
  EventStoreDBClient,
  PersistentSubscriptionDoesNotExistError,
  PersistentSubscriptionExistsError,
  PersistentSubscriptionMaximumSubscribersReachedError,
  START,
  excludeSystemEvents,
  persistentSubscriptionToAllSettingsFromDefaults,
  type PersistentSubscriptionToAll,
  type PersistentSubscriptionToAllResolvedEvent,
  type PersistentSubscriptionToAllSettings,
} from '@eventstore/db-client';
import type { EventStore, RecordedEvent, SubscribeOptions, Subscription } from '../../application/ports/EventStore.js';
import { silentLogger, type Logger } from '../../application/ports/Logger.js';
import { Alarm, backoffMs } from '../../application/Alarm.js';
import { comparePositions, type Position } from '../../shared/Position.js';
import { decodeEsdbPosition, isSystemEvent, toRecordedEvent } from './EventStoreDbEventStore.js';

/** The persistent subscription group (to $all) that feeds the webhook fan-out. */
export const WEBHOOK_FAN_OUT_GROUP = 'chronicle-webhook-fan-out';

/** The largest value of the server's int32 settings fields. */
const INT32_MAX = 2_147_483_647;

/**
 * The group's settings. Every field is set here rather than left to the driver's
 * defaults, because together they are what keeps delivery in log order.
 *
 * How the server (KurrentDB/EventStoreDB `PersistentSubscription`, `StreamBuffer`)
 * delivers: events leave its buffer in log order and are pushed to a consumer
 * with free in-flight slots (the subscriber's `bufferSize`); an event stays
 * outstanding until acked. A retried event (nack with retry, message timeout,
 * its consumer's connection dropping) goes to a retry queue, kept in log order,
 * that is sent before anything new. So with one consumer, first deliveries come
 * in log order, and after a reconnect the unacked events come first, in order;
 * only a retry while connected (nack, timeout) brings an event behind a later
 * one. Hence: one consumer, never a nack, no timeout, and the consumer skips
 * what it has already stored (see `PersistentFanOutSubscription`).
 */
export const fanOutGroupSettings = (startFrom: Position | null): PersistentSubscriptionToAllSettings =>
  persistentSubscriptionToAllSettingsFromDefaults({
    // First creation only (an existing group keeps its own checkpoint): the whole
    // log, so every stored event is fanned out once; the fan-out's own checkpoint
    // skips what its outbox already holds. Tests start at the log's head instead.
    startFrom: startFrom === null ? START : decodeEsdbPosition(startFrom),
    // $all holds link events ($>) and their targets; resolving them would deliver
    // an event twice. The filter drops links anyway.
    resolveLinkTos: false,
    // Per-consumer latency histograms: a cost the docs advise against outside diagnosis.
    extraStatistics: false,
    // An event not acked within this time is retried: pushed again, and its slot
    // freed for the next one. The consumer acks only after the outbox write, which
    // it retries locally, so a timeout would only ever fire while the outbox is
    // down, and would only do harm: the server writes to each consumer through a
    // channel of `bufferSize` entries that drops writes when full, and a consumer
    // holding a stuck batch fills it with retried copies, so a new event pushed then
    // would be lost on the wire until its own timeout, arriving behind later ones.
    // So: the largest value the int32 field takes (~24.8 days), i.e. never. (Not 0:
    // the server turns 0 ms into TimeSpan.Zero, and only TimeSpan.MaxValue, which
    // the gRPC API cannot send, disables the timeout.)
    messageTimeout: INT32_MAX,
    // Each retry counts (a timeout, or the consumer's connection dropping with
    // unacked events), and past this count the event is parked: the server's
    // checkpoint moves past it and only a manual replay would deliver it. A
    // connection that flaps while a batch is stuck must never park: int32 max.
    maxRetryCount: INT32_MAX,
    // How often the server may write the group's checkpoint (where it resumes after
    // its own restart or a leader change): every second, as soon as one acked event
    // moved it, and at the latest every 500 events. A lagging checkpoint only means
    // redelivery of events already stored, which the consumer skips.
    checkPointAfter: 1_000,
    checkPointLowerBound: 1,
    checkPointUpperBound: 500,
    // One active consumer per group across all Chronicle instances: a second one is
    // refused (MaximumSubscribersReached) and waits as a standby, retrying.
    maxSubscriberCount: 1,
    // With one consumer, DispatchToSingle sends everything, in buffer order, to it
    // (RoundRobin spreads in-flight events over consumers; Pinned hashes streams
    // and may skip a busy consumer, which moves events to the retry queue).
    consumerStrategyName: DISPATCH_TO_SINGLE,
    // Server-side buffers: live events kept while the consumer keeps up (past this
    // it falls back to paging the log, in order); history is paged in readBatchSize
    // pages into a buffer of historyBufferSize (the server requires readBatchSize <
    // historyBufferSize).
    liveBufferSize: 500,
    readBatchSize: 100,
    historyBufferSize: 500,
  });

export interface EsdbPersistentFanOutSourceOptions {
  /** Group name; default `chronicle-webhook-fan-out`. */
  readonly group?: string;
  /** Where a newly created group starts: null (default) is the beginning of the log. */
  readonly startFrom?: Position | null;
  /**
   * How many unacknowledged events the server lets this consumer hold (the
   * subscribe call's `bufferSize`), hence the largest batch; default 100.
   */
  readonly bufferSize?: number;
  readonly logger?: Logger;
}

/**
 * The webhook fan-out's event source on EventStoreDB: a persistent subscription
 * group to $all with a single active consumer, acknowledged only after the
 * fan-out has stored a batch (rows, view and checkpoint), never nacked.
 *
 * It has the shape of `EventStore.subscribeToAll`, so `WebhookFanOut` takes it
 * as its `source`: the fan-out passes its stored position as `after`, and this
 * source hands over only events after it, in log order, retrying a failing batch
 * locally with backoff until it is stored or the source is stopped.
 *
 * Why a persistent subscription rather than the catch-up one: the server, not
 * each process, decides who consumes, so several instances may run the
 * webhooks role and exactly one of them fans out at a time; the others wait.
 */
export class EsdbPersistentFanOutSource implements Pick<EventStore, 'subscribeToAll'> {
  readonly group: string;
  private readonly subscriptions = new Set<Subscription>();
  private readonly logger: Logger;
  private closed = false;

  /** A source with its own client (gRPC channel), closed by `close()`. */
  static connect(connectionString: string, options: EsdbPersistentFanOutSourceOptions = {}): EsdbPersistentFanOutSource {
    return new EsdbPersistentFanOutSource(EventStoreDBClient.connectionString(connectionString), options, true);
  }

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly options: EsdbPersistentFanOutSourceOptions = {},
    private readonly ownsClient = false,
  ) {
    this.group = options.group ?? WEBHOOK_FAN_OUT_GROUP;
    this.logger = options.logger ?? silentLogger;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    if (this.closed) throw new Error('The fan-out source is closed');
    const subscription = new PersistentFanOutSubscription(
      this.client,
      this.group,
      () => this.ensureGroup(),
      options,
      Math.max(1, Math.floor(this.options.bufferSize ?? 100)),
      this.logger,
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * Creates the group if it does not exist. An existing group keeps its
   * checkpoint and settings; those that ordering depends on are checked.
   */
  async ensureGroup(): Promise<void> {
    try {
      await this.client.createPersistentSubscriptionToAll(this.group, fanOutGroupSettings(this.options.startFrom ?? null), {
        // Server-side filter on event type ^[^$]; stream names are checked again on receipt.
        filter: excludeSystemEvents(),
      });
      this.logger.info({ group: this.group }, 'webhook fan-out: persistent subscription group created');
    } catch (error) {
      if (!(error instanceof PersistentSubscriptionExistsError)) throw error;
      await this.checkExistingGroup();
    }
  }

  /** Refuses a group whose settings would break log order (created by hand or by another version). */
  private async checkExistingGroup(): Promise<void> {
    let settings: PersistentSubscriptionToAllSettings;
    try {
      ({ settings } = await this.client.getPersistentSubscriptionToAllInfo(this.group));
    } catch (error) {
      // An older server (this read needs 21.10.1) or a refused read: the group is used as it is.
      this.logger.warn({ err: error, group: this.group }, 'webhook fan-out: cannot read the group settings to check them');
      return;
    }
    const wrong: string[] = [];
    if (settings.consumerStrategyName !== DISPATCH_TO_SINGLE) wrong.push(`consumer strategy ${settings.consumerStrategyName}`);
    if (settings.maxSubscriberCount !== 1) wrong.push(`max subscriber count ${String(settings.maxSubscriberCount)}`);
    if (settings.resolveLinkTos) wrong.push('resolveLinkTos');
    if (wrong.length > 0) {
      throw new Error(
        `Persistent subscription group ${this.group} on $all has settings that break delivery order (${wrong.join(', ')}); ` +
          'delete it (it is recreated at the start of the log; the fan-out skips what it has stored) or fix it',
      );
    }
    const expected = fanOutGroupSettings(null);
    if (settings.maxRetryCount < expected.maxRetryCount || settings.messageTimeout < expected.messageTimeout) {
      this.logger.warn(
        { group: this.group, maxRetryCount: settings.maxRetryCount, messageTimeout: settings.messageTimeout },
        'webhook fan-out: the group may retry or park events (message timeout or retry count below the fan-out settings)',
      );
    }
  }

  /**
   * Deletes the group (its server checkpoint and parked events). For operators
   * resetting the fan-out (an emptied outbox needs the log again) and for tests.
   */
  async deleteGroup(): Promise<void> {
    try {
      await this.client.deletePersistentSubscriptionToAll(this.group);
    } catch (error) {
      if (!(error instanceof PersistentSubscriptionDoesNotExistError)) throw error;
    }
  }

  /** Stops every subscription (after its in-flight batch), then closes its own client. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.stop()));
    if (this.ownsClient) await this.client.dispose();
  }
}

/** How long an idle consumer sleeps before it looks at its driver stream again (it is woken on data). */
const IDLE_RECHECK_MS = 30_000;

/**
 * One consumer of the group. Reads the driver's object-mode stream in paused
 * mode, taking what is already buffered (at most the server's in-flight limit)
 * as one batch; hands over the events after the last stored position; acks the
 * whole batch (skipped events too) once the handler resolved; resubscribes with
 * backoff when the stream fails.
 */
class PersistentFanOutSubscription implements Subscription {
  private handled: Position | null;
  private stopped = false;
  private groupReady = false;
  /** Woken by the driver stream (data, error, end, confirmation) and by stop(). */
  private readonly streamAlarm = new Alarm();
  /** Woken only by stop(): ends a backoff early. */
  private readonly backoffAlarm = new Alarm();
  private readonly maxBatchSize: number;
  private readonly done: Promise<void>;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly group: string,
    private readonly ensureGroup: () => Promise<void>,
    private readonly options: SubscribeOptions,
    private readonly bufferSize: number,
    private readonly logger: Logger,
    private readonly onStopped: () => void,
  ) {
    if (options.after !== null) decodeEsdbPosition(options.after); // fail fast on a malformed position
    this.handled = options.after;
    this.maxBatchSize = Math.max(1, Math.floor(options.maxBatchSize ?? bufferSize));
    this.done = this.run();
  }

  get position(): Position | null {
    return this.handled;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.streamAlarm.wake();
    this.backoffAlarm.wake();
    await this.done;
    this.onStopped();
  }

  private async run(): Promise<void> {
    let drops = 0;
    while (!this.stopped) {
      let driver: PersistentSubscriptionToAll | null = null;
      try {
        if (!this.groupReady) {
          await this.ensureGroup();
          this.groupReady = true;
        }
        if (this.stopped) break;
        driver = this.client.subscribeToPersistentSubscriptionToAll(
          this.group,
          { bufferSize: this.bufferSize },
          { highWaterMark: this.bufferSize },
        );
        await this.follow(driver, () => {
          this.logger.info({ group: this.group }, 'webhook fan-out: consuming the persistent subscription group');
          drops = 0;
        });
      } catch (error) {
        if (this.stopped) break;
        drops += 1;
        // Deleted under us (an operator reset): create it again on the next attempt.
        if (error instanceof PersistentSubscriptionDoesNotExistError) this.groupReady = false;
        this.reportDrop(error, drops);
        await this.backoffAlarm.sleep(backoffMs(drops));
      } finally {
        if (driver) await release(driver);
      }
    }
  }

  private reportDrop(error: unknown, attempt: number): void {
    if (error instanceof PersistentSubscriptionMaximumSubscribersReachedError) {
      // Another instance is the consumer: this one waits, polling at the backoff's pace.
      if (attempt === 1) this.logger.info({ group: this.group }, 'webhook fan-out: another instance consumes the group; standing by');
      return;
    }
    this.logger.warn({ err: error, attempt, group: this.group }, 'webhook fan-out: persistent subscription dropped; resubscribing');
  }

  /** Reads, hands over and acks until stopped (returns) or the driver stream fails or ends (throws). */
  private async follow(driver: PersistentSubscriptionToAll, onConfirmed: () => void): Promise<void> {
    // Set by the listeners below (an object, so that the checks after `await` are not narrowed away).
    const state: { failure: { error: unknown } | null; ended: boolean } = { failure: null, ended: false };
    // The error listener stays for the stream's life: an unheard 'error' would crash the process.
    driver.on('error', (error) => {
      state.failure ??= { error };
      this.streamAlarm.wake();
    });
    driver.on('confirmation', () => {
      onConfirmed();
      this.streamAlarm.wake();
    });
    driver.on('readable', () => this.streamAlarm.wake());
    driver.on('end', () => {
      state.ended = true;
      this.streamAlarm.wake();
    });

    while (!this.stopped) {
      const received: PersistentSubscriptionToAllResolvedEvent[] = [];
      const batch: RecordedEvent[] = [];
      let drained = false;
      while (received.length < this.maxBatchSize) {
        const resolved = driver.read() as PersistentSubscriptionToAllResolvedEvent | null;
        if (resolved === null) {
          drained = true;
          break;
        }
        received.push(resolved);
        const event = this.toHandle(resolved, batch);
        if (event) batch.push(event);
      }
      if (received.length > 0) {
        if (batch.length > 0 && !(await this.deliver(batch))) return; // stopped before it was stored: not acked
        // Stored (or nothing to store): now the server may forget them. Never a nack.
        await driver.ack(...received);
        continue;
      }
      if (!drained) continue;
      if (state.failure) throw state.failure.error;
      if (state.ended) throw new Error('The EventStoreDB persistent subscription ended');
      await this.streamAlarm.sleep(IDLE_RECHECK_MS);
    }
  }

  /**
   * The port's event for a received one, or null when it is not to be handed
   * over: a system event, or one at or before what is already stored (a retried
   * or redelivered copy: the group's checkpoint may lag behind the fan-out's).
   */
  private toHandle(resolved: PersistentSubscriptionToAllResolvedEvent, batch: readonly RecordedEvent[]): RecordedEvent | null {
    if (!resolved.event || isSystemEvent(resolved.event)) return null;
    const event = toRecordedEvent(resolved.event);
    const last = batch[batch.length - 1]?.position ?? this.handled;
    if (last !== null && comparePositions(event.position, last) <= 0) {
      if (this.logger.isLevelEnabled('debug')) {
        this.logger.debug(
          { group: this.group, eventId: event.id, position: event.position, retryCount: resolved.retryCount },
          'webhook fan-out: skipping an event already handled',
        );
      }
      return null;
    }
    return event;
  }

  /** Offers the batch until the handler accepts it (true) or the subscription stops (false). */
  private async deliver(batch: readonly RecordedEvent[]): Promise<boolean> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await this.options.handle(batch);
        this.handled = batch[batch.length - 1]!.position;
        return true;
      } catch (error) {
        try {
          this.options.onError?.(error, attempt);
        } catch {
          // an observer must not break the loop
        }
        await this.backoffAlarm.sleep(backoffMs(attempt));
      }
    }
    return false;
  }
}

/**
 * Cancels the gRPC call behind a consumer: the server then retries its
 * unacknowledged events, in log order, to the next consumer.
 */
const release = async (driver: PersistentSubscriptionToAll): Promise<void> => {
  try {
    await driver.unsubscribe();
  } catch {
    // The call never started (no connection) or is already gone.
  }
  driver.destroy();
};
