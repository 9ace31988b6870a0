import {
  DISPATCH_TO_SINGLE,
  EventStoreDBClient,
  PersistentSubscriptionDoesNotExistError,
  PersistentSubscriptionExistsError,
  PersistentSubscriptionMaximumSubscribersReachedError,
  START,
  excludeSystemEvents,
  persistentSubscriptionToAllSettingsFromDefaults,
  END,
  type PersistentSubscriptionToAll,
  type PersistentSubscriptionToAllInfo,
  type PersistentSubscriptionToAllResolvedEvent,
  type PersistentSubscriptionToAllSettings,
} from '@eventstore/db-client';
import {
  ResumePointNotInLogError,
  notify,
  type EventStore,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../../application/ports/EventStore.js';
import { silentLogger, type Logger } from '../../application/ports/Logger.js';
import { Alarm, backoffMs } from '../../application/subscriptions/Alarm.js';
import { comparePositions, type Position } from '../../shared/Position.js';
import {
  EventStoreDbEventStore,
  decodeEsdbPosition,
  encodeEsdbPosition,
  isInvalidPosition,
  isSystemEvent,
  toRecordedEvent,
} from './EventStoreDbEventStore.js';

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

/** The CLI command that deletes the group, so that the next start recreates it from the outbox's position. */
export const RESET_FAN_OUT_COMMAND = 'chronicle webhooks reset-fan-out';

/**
 * The group has consumed events that the outbox does not hold, and the outbox is
 * empty: most likely not the outbox the group fed (MONGODB_URL or MONGODB_DB
 * changed, the outbox emptied). Starting would never deliver those events, and
 * subscriptions made among them would never receive anything; fanning the whole
 * log out again is the operator's call (`chronicle webhooks reset-fan-out`).
 */
export class FanOutGroupAheadError extends Error {
  override readonly name = 'FanOutGroupAheadError';
  constructor(
    readonly group: string,
    /** Where the group resumes (its checkpoint, else where it was created to start). */
    readonly groupPosition: string,
    /** The first event of ours after the outbox's position that the group would skip. */
    readonly firstMissed: Position,
  ) {
    super(
      `Webhook fan-out: the webhook outbox is empty, but the EventStoreDB persistent subscription group "${group}" ` +
        `has already consumed the log up to ${groupPosition} (the first event the outbox lacks is at ${firstMissed}). ` +
        'This outbox is not the one the group fed: check MONGODB_URL and MONGODB_DB. To fan the whole log out into ' +
        'this outbox (every event is sent again; receivers de-duplicate by metadata.eventId), stop the dispatchers ' +
        `and run \`${RESET_FAN_OUT_COMMAND}\`, then start again.`,
    );
  }
}

/**
 * Where a group resumes, from its info: after its checkpoint (exclusive), else
 * from where it was created to start (inclusive); the start of the log, or its
 * end (`END`: from whatever was last when the server loaded the group).
 */
export type GroupResumePoint =
  | { readonly kind: 'after'; readonly position: Position }
  | { readonly kind: 'from'; readonly position: Position }
  | { readonly kind: 'start' }
  | { readonly kind: 'end' };

export const groupResumePoint = (info: Pick<PersistentSubscriptionToAllInfo, 'settings' | 'stats'>): GroupResumePoint => {
  const checkpoint = info.stats.lastCheckpointedEventPosition;
  if (checkpoint && (checkpoint.commit > 0n || checkpoint.prepare > 0n)) {
    return { kind: 'after', position: encodeEsdbPosition(checkpoint) };
  }
  const from = info.settings.startFrom;
  if (from === START || from === undefined) return { kind: 'start' };
  if (from === END) return { kind: 'end' };
  return from.commit === 0n && from.prepare === 0n ? { kind: 'start' } : { kind: 'from', position: encodeEsdbPosition(from) };
};

/**
 * Whether a group resuming at `resume` would skip `next`, the first event of ours
 * after what the outbox holds (null: there is none, so nothing can be skipped).
 */
export const groupSkips = (resume: GroupResumePoint, next: Position | null): boolean => {
  if (next === null) return false;
  switch (resume.kind) {
    case 'start':
      return false;
    case 'end':
      return true;
    case 'after':
      return comparePositions(next, resume.position) <= 0;
    case 'from':
      return comparePositions(next, resume.position) < 0;
  }
};

const describeResume = (resume: GroupResumePoint): string =>
  resume.kind === 'after' ? `its checkpoint ${resume.position}` : resume.kind === 'from' ? `its start ${resume.position}` : `the log's ${resume.kind}`;

export interface EsdbPersistentFanOutSourceOptions {
  /** Group name; default `chronicle-webhook-fan-out`. */
  readonly group?: string;
  /**
   * Where a group created for an empty outbox starts: null (default) is the
   * beginning of the log (tests start at its head). A group for an outbox that
   * holds a position is created at that position.
   */
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
  /** Reads $all for the gap check (on the same client; never closed on its own). */
  private readonly log: EventStoreDbEventStore;
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
    this.log = new EventStoreDbEventStore(client);
  }

  /**
   * Called by the fan-out at start, before it subscribes, with the outbox's
   * position: makes sure the group exists and resumes no later than that
   * position (see `ensureGroup`). Waits, retrying with backoff, while EventStoreDB
   * cannot be reached (`onWaiting` is told what it waits for, `onFailure` each
   * failure), until `signal` aborts. Refuses (FanOutGroupAheadError) a group that
   * is ahead of an empty outbox.
   */
  async prepare(
    after: Position | null,
    hooks: {
      readonly signal?: AbortSignal;
      readonly onWaiting?: (what: string) => void;
      readonly onFailure?: (error: unknown, attempt: number) => void;
    } = {},
  ): Promise<void> {
    if (after !== null) decodeEsdbPosition(after); // fail fast on a malformed position
    const alarm = new Alarm();
    const wake = () => alarm.wake();
    hooks.signal?.addEventListener('abort', wake, { once: true });
    try {
      notify(hooks.onWaiting, `EventStoreDB to check the persistent subscription group ${this.group}`);
      for (let attempt = 1; ; attempt++) {
        if (hooks.signal?.aborted) throw hooks.signal.reason ?? new Error('aborted');
        try {
          await this.ensureGroup(after);
          return;
        } catch (error) {
          // No event begins at the outbox's position in this log: no retry changes that.
          if (isInvalidPosition(error) && after !== null) throw new ResumePointNotInLogError(after, null, { eventId: null });
          if (error instanceof FanOutGroupAheadError || hooks.signal?.aborted) throw error;
          notify(hooks.onFailure, error, attempt);
          await alarm.sleep(backoffMs(attempt));
        }
      }
    } finally {
      hooks.signal?.removeEventListener('abort', wake);
    }
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    if (this.closed) throw new Error('The fan-out source is closed');
    const subscription = new PersistentFanOutSubscription(
      this.client,
      this.group,
      (after) => this.ensureGroup(after),
      (position, eventId) => this.log.checkResumePoint(position, eventId),
      options,
      Math.max(1, Math.floor(this.options.bufferSize ?? 100)),
      this.logger,
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * Creates the group if it does not exist, at `after` (the outbox's position;
   * for an empty outbox, `startFrom`). An existing group keeps its checkpoint and
   * settings; those that ordering depends on are checked, and so is where it
   * resumes: a group ahead of the outbox (a MongoDB restored from a backup, an
   * outbox emptied or swapped) would skip the events in between, and the
   * subscriptions made among them. Such a group is recreated at the outbox's
   * position; when the outbox is empty, FanOutGroupAheadError is thrown instead.
   */
  async ensureGroup(after: Position | null): Promise<void> {
    const floor = after ?? this.options.startFrom ?? null;
    if (await this.createGroup(floor)) return;
    const info = await this.readGroupInfo();
    if (info === null) return;
    this.checkSettings(info.settings);
    const resume = groupResumePoint(info);
    // The first event of ours the outbox lacks: the group must not resume after it.
    const [next] = await this.log.readAll({ after: floor, maxCount: 1 });
    if (!groupSkips(resume, next?.position ?? null)) return;
    if (after === null) {
      throw new FanOutGroupAheadError(this.group, resume.kind === 'after' || resume.kind === 'from' ? resume.position : resume.kind, next!.position);
    }
    this.logger.warn(
      { group: this.group, groupResumes: describeResume(resume), outboxPosition: after, firstMissed: next!.position },
      'webhook fan-out: the persistent subscription group is ahead of the outbox (restored or replaced outbox); ' +
        'recreating it at the outbox position, so that the events in between are fanned out',
    );
    await this.deleteGroup();
    if (!(await this.createGroup(floor))) {
      // Another instance recreated it meanwhile: check again from the top on the next attempt.
      throw new Error(`Persistent subscription group ${this.group} was recreated by another instance; checking it again`);
    }
  }

  /** Creates the group at `from` (null: the start of the log); false when it exists already. */
  private async createGroup(from: Position | null): Promise<boolean> {
    try {
      await this.client.createPersistentSubscriptionToAll(this.group, fanOutGroupSettings(from), {
        // Server-side filter on event type ^[^$]; stream names are checked again on receipt.
        filter: excludeSystemEvents(),
      });
      this.logger.info({ group: this.group, from: from ?? 'start' }, 'webhook fan-out: persistent subscription group created');
      return true;
    } catch (error) {
      if (error instanceof PersistentSubscriptionExistsError) return false;
      throw error;
    }
  }

  /** The group's settings and statistics, or null when the server cannot tell (the group is then used as it is). */
  private async readGroupInfo(): Promise<PersistentSubscriptionToAllInfo | null> {
    try {
      return await this.client.getPersistentSubscriptionToAllInfo(this.group);
    } catch (error) {
      // An older server (this read needs 21.10.1) or a refused read: the group is used as it is.
      this.logger.warn({ err: error, group: this.group }, 'webhook fan-out: cannot read the group settings to check them');
      return null;
    }
  }

  /** Refuses a group whose settings would break log order (created by hand or by another version). */
  private checkSettings(settings: PersistentSubscriptionToAllSettings): void {
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
  async deleteGroup(): Promise<boolean> {
    try {
      await this.client.deletePersistentSubscriptionToAll(this.group);
      return true;
    } catch (error) {
      if (!(error instanceof PersistentSubscriptionDoesNotExistError)) throw error;
      return false;
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
  /** The id of the event at `handled`, once a batch was handled here. */
  private handledId: string | null = null;
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
    private readonly ensureGroup: (after: Position | null) => Promise<void>,
    private readonly checkResumePoint: (position: Position, eventId: string | null) => Promise<void>,
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
        // After a drop (EventStoreDB restarted, perhaps from an older copy of its data), resume only where
        // the log still holds what was stored: the group would hand over new events under positions the
        // outbox counts as stored, and they would be skipped.
        if (drops > 0 && this.handled !== null) await this.checkResumePoint(this.handled, this.handledId);
        if (!this.groupReady) {
          await this.ensureGroup(this.handled);
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
          notify(this.options.onConnected);
        });
      } catch (error) {
        if (this.stopped) break;
        const notInLog =
          error instanceof ResumePointNotInLogError
            ? error
            : isInvalidPosition(error) && this.handled !== null
              ? new ResumePointNotInLogError(this.handled, this.handledId, { eventId: null })
              : null;
        if (notInLog) {
          // No retry can pass it: stop, and say so once.
          this.stopped = true;
          notify(this.options.onFailed, notInLog);
          break;
        }
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
      notify(this.options.onWaiting, `the other instance consuming the persistent subscription group ${this.group} to stop`);
      return;
    }
    // The subscriber's own status logs the drop when it listens; otherwise it is logged here.
    if (this.options.onDropped) notify(this.options.onDropped, error, attempt);
    else this.logger.warn({ err: error, attempt, group: this.group }, 'webhook fan-out: persistent subscription dropped; resubscribing');
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
        const last = batch[batch.length - 1]!;
        this.handled = last.position;
        this.handledId = last.id;
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
