import { ResumePointNotInLogError, type EventStore, type RecordedEvent } from '../application/ports/EventStore.js';
import type { UndecodableEventError } from '../application/versioning/UndecodableEventError.js';
import { FanOutNotOnLogError } from './FanOutNotOnLogError.js';
import type { ErasedPerson } from '../application/personalData/erasePerson.js';
import type { Logger } from '../application/ports/Logger.js';
import type {
  FanOutState,
  FannedOutSubscription,
  NewDelivery,
  WebhookFilters,
  WebhookOutbox,
} from '../application/ports/WebhookOutbox.js';
import { systemClock, type Clock } from '../shared/Clock.js';
import type { SubscriptionStatusSnapshot } from '../application/subscriptions/SubscriptionStatus.js';
import { LogFollower } from '../application/subscriptions/LogFollower.js';
import { comparePositions, type Position } from '../shared/Position.js';

/** The fan-out's checkpoint name, in the outbox's store (never the read models'). */
export const WEBHOOK_FAN_OUT_CHECKPOINT = 'webhook-fan-out';

/** What the fan-out needs of a derived webhook event (`DerivedWebhookEvent`). */
export interface FanOutDerivedEvent {
  /** Deterministic: the same on every replay. */
  readonly eventId: string;
  /** Webhook event type, e.g. `deal.won`. */
  readonly type: string;
  readonly companyId: string;
  /** ISO 8601 UTC. */
  readonly timestamp: string;
}

/**
 * Where the fan-out reads the log: anything shaped like `EventStore.subscribeToAll`.
 * It is given the fan-out's stored position as `after` and must hand over batches
 * in log order after it, retrying a failing batch rather than skipping it.
 */
export type FanOutEventSource = Pick<EventStore, 'subscribeToAll'> & {
  /**
   * Called once at start, before `subscribeToAll`, with the fan-out's stored
   * position: sets the source up so that it resumes no later than that position
   * (the EventStoreDB group's gap check). It may wait (telling `onWaiting` what
   * for, `onFailure` each failure) until `signal` aborts, and may refuse to start
   * by throwing.
   */
  prepare?(
    after: Position | null,
    hooks: {
      readonly signal: AbortSignal;
      readonly onWaiting: (what: string) => void;
      readonly onFailure: (error: unknown, attempt: number) => void;
    },
  ): Promise<void>;
};

/**
 * Where the fan-out keeps the id of the event at its checkpoint, beside the outbox
 * (the outbox's own checkpoint keeps only the position), so that a start can
 * check the log still holds that event there. Saved with each batch, alongside
 * the outbox's commit (either may land first: both name events of this log).
 */
export interface FanOutLogWitness {
  load(name: string): Promise<{ readonly position: Position; readonly eventId: string } | null>;
  save(name: string, position: Position, eventId: string): Promise<void>;
}

export interface WebhookFanOutDeps<D extends FanOutDerivedEvent> {
  /**
   * The log: its catch-up subscription (unless `source` replaces it), and, where
   * given, its head and the event at a position, with which a start checks that
   * the log holds what the outbox was filled from (`FanOutNotOnLogError`).
   */
  readonly eventStore: Pick<EventStore, 'subscribeToAll'> & Partial<Pick<EventStore, 'headPosition' | 'eventIdAt'>>;
  /** See `FanOutLogWitness`; absent: the start checks the position alone. */
  readonly witness?: FanOutLogWitness;
  /**
   * Told when the fan-out stopped for good after its start: the log no longer holds
   * where the outbox stands (EventStoreDB put back to an older copy while this
   * process ran). The process must stop; its next start refuses, saying why.
   */
  readonly onFailed?: (error: FanOutNotOnLogError) => void;
  /**
   * Replaces `eventStore.subscribeToAll` as the fan-out's event source (on
   * EventStoreDB: a persistent subscription group with one active consumer).
   * Default: the event store's catch-up subscription from the fan-out's checkpoint.
   */
  readonly source?: FanOutEventSource;
  readonly outbox: WebhookOutbox;
  /** The catalogue's `derive` (`WEBHOOK_EVENTS`): the webhook events of one stored event (pure). */
  derive(event: RecordedEvent): readonly D[];
  /**
   * What a stored event says of the subscriptions (the webhooks feature reads its
   * own events): one subscribed or unsubscribed, a subscription event that does
   * not decode (`malformed`: logged and ignored), or null for any other event.
   */
  subscriptionChange(event: RecordedEvent): SubscriptionChange | null;
  /**
   * The catalogue's `companyOf`: the company of every event `derive` would give, read
   * without deriving them; null when it cannot tell (the fan-out then derives).
   * A stored event of a company without subscriptions is then not derived at all.
   */
  companyOf?(event: RecordedEvent): string | null;
  /** `matchesFilters`: whether a subscription's filters let a derived event through (pure). */
  matches(filters: WebhookFilters, derived: D): boolean;
  /** `toEnvelope`: the delivery body of a derived event (JSON-serialisable). */
  toEnvelope(derived: D): unknown;
  /**
   * Erasure: whom a stored event erases (the catalogue's `erasureOf`), and a
   * delivery's body without that person's values. The fan-out rewrites every row of
   * the company that mentions the person before it stores its position past the
   * erasure: the rows of events before it are all enqueued by then (log order), so
   * none keeps the values, and a pending one goes out with them erased. Absent: no
   * event erases anyone.
   */
  readonly erasure?: {
    of(event: RecordedEvent): { readonly companyId: string; readonly subject: ErasedPerson } | null;
    rewrite(envelope: string, subject: ErasedPerson): string;
  };
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Checkpoint name; default `webhook-fan-out`. */
  readonly name?: string;
  readonly maxBatchSize?: number;
  /** Told after each batch that enqueued rows (the dispatcher's `wake`). */
  readonly onEnqueued?: () => void;
}

/** A change of the subscriptions, as a stored event tells it (see `subscriptionChange`). */
export type SubscriptionChange =
  | {
      readonly kind: 'subscribed';
      readonly subscriptionId: string;
      readonly companyId: string;
      readonly event: string;
      readonly targetUrl: string;
      readonly filters: WebhookFilters;
    }
  | { readonly kind: 'unsubscribed'; readonly subscriptionId: string }
  | { readonly kind: 'malformed' };

/**
 * How often, at most, the fan-out stores a checkpoint that is all a batch has to
 * store (no rows, no change to the subscriptions), when it follows the event
 * store's own catch-up subscription. See `WebhookFanOut.handle`.
 */
export const CHECKPOINT_ONLY_EVERY_MS = 1000;

/** The derived timestamp in the outbox's fixed format (the stored event's time if it does not parse). */
const isoOrRecorded = (timestamp: string, event: RecordedEvent): string => {
  const ms = Date.parse(timestamp);
  return new Date(Number.isNaN(ms) ? Date.parse(event.recordedAt) : ms).toISOString();
};

/** A subscription in the fan-out's memory. */
type Known = FannedOutSubscription;

const isActiveAt = (sub: Known, position: Position): boolean =>
  comparePositions(position, sub.subscribedAt) > 0 &&
  (sub.unsubscribedAt === null || comparePositions(position, sub.unsubscribedAt) < 0);

/**
 * The webhook fan-out: a durable subscription to the whole log, separate from
 * the projection runner (rebuilding read models never sends a webhook), with its
 * own checkpoint in the outbox's store.
 *
 * It keeps its own log-consistent view of the subscriptions, folding
 * WebhookSubscribed and WebhookUnsubscribed as it reads them, so each stored
 * event is matched against the subscriptions exactly as they were at that point
 * of the log: a subscription receives the events after its WebhookSubscribed and
 * before its WebhookUnsubscribed, whatever the timing of the API that served the
 * subscribe. For each stored event, the derived webhook events of a company go
 * to that company's subscriptions to the type whose filters match, one outbox row
 * each. A batch's rows, the view's changes and the checkpoint are stored
 * together (`WebhookOutbox.commitFanOut`), so a restart resumes at the checkpoint
 * with the view as it was there, without reading the log again from the start.
 */
export class WebhookFanOut<D extends FanOutDerivedEvent> {
  private readonly name: string;
  private readonly clock: Clock;
  /** Subscriptions by id, and the ids of each company. */
  private readonly byId = new Map<string, Known>();
  private readonly byCompany = new Map<string, Set<string>>();
  /** The last position handled: stored, or (nothing to store) not yet. */
  private current: Position | null = null;
  /** The position of the last commit, and when it was made (`Date.now()`). */
  private stored: Position | null = null;
  private storedAt = 0;
  /** The memory may hold a batch that was not stored: reload before the next one. */
  private stale = false;
  private readonly follower: LogFollower;
  private started = false;

  constructor(private readonly deps: WebhookFanOutDeps<D>) {
    this.name = deps.name ?? WEBHOOK_FAN_OUT_CHECKPOINT;
    this.clock = deps.clock ?? systemClock;
    this.follower = new LogFollower(
      this.name,
      deps.logger,
      { retrying: 'webhook fan-out batch failed; retrying', stopped: 'webhook fan-out' },
      'the webhook outbox to load the fan-out checkpoint',
      this.clock,
    );
  }

  /** Position of the last batch handled (everything it had to store is stored). */
  get position(): Position | null {
    return this.current;
  }

  /** Where the fan-out's subscription stands, and what it waits for (for /health and /ready). */
  get status(): SubscriptionStatusSnapshot {
    return this.follower.status;
  }

  /** Before `start`: what the start waits for (the webhooks' lease), shown by /health and /ready. */
  waitingFor(what: string): void {
    this.follower.tracker.waiting(what);
  }

  /**
   * The event that stopped the fan-out (an event of the log this release cannot
   * read: retrying would never pass it, skipping it would lose its webhooks), or
   * null while it follows the log. Everything before it is stored.
   */
  get failure(): UndecodableEventError | null {
    return this.follower.failure;
  }

  /**
   * Loads the checkpoint and the view, prepares the source (on EventStoreDB:
   * the group's gap check, which waits while the server cannot be reached and
   * may refuse to start), and starts following the log from there.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const state = await this.deps.outbox.loadFanOut(this.name);
    await this.checkAgainstLog(state.position, state.eventId ?? null);
    this.load(state);
    this.deps.logger.info({ from: state.position, subscriptions: this.byId.size }, 'webhook fan-out started');
    // An injected source (deps.source) is followed in place of the event store's catch-up subscription.
    const source: FanOutEventSource = this.deps.source ?? this.deps.eventStore;
    const status = this.follower.tracker;
    const { signal } = this.follower;
    if (source.prepare) {
      let waitingFor = 'the event source';
      try {
        await source.prepare(state.position, {
          signal,
          onWaiting: (what) => {
            waitingFor = what;
            status.waiting(what);
          },
          onFailure: (error) => status.dropped(error, waitingFor),
        });
      } catch (error) {
        if (signal.aborted) return; // stopped while waiting: not a failure
        throw error;
      }
    }
    if (signal.aborted) return;
    status.waiting('the event store to accept the subscription');
    this.follower.follow(source, {
      after: state.position,
      handle: (batch) => this.handle(batch),
      position: () => this.current,
      droppedWaitingFor: () => 'the event store to accept the subscription again',
      standby: true,
      onFailed: (error) => {
        const failure = new FanOutNotOnLogError(this.name, error);
        this.deps.logger.error({ err: failure, position: error.position }, failure.message);
        this.deps.onFailed?.(failure);
      },
      ...(this.deps.maxBatchSize !== undefined ? { maxBatchSize: this.deps.maxBatchSize } : {}),
    });
  }

  /**
   * Refuses to start on a log that does not hold what the outbox was filled from:
   * one that ends before the outbox's position, or holds another event where the
   * witness saw one (a position alone cannot tell a restored log that took new
   * events since).
   */
  private async checkAgainstLog(position: Position | null, eventId: string | null): Promise<void> {
    const log = this.deps.eventStore;
    if (position === null || !log.headPosition) return;
    const head = await log.headPosition();
    if (head === null || comparePositions(position, head) > 0) {
      throw new FanOutNotOnLogError(this.name, new ResumePointNotInLogError(position, null, { head }));
    }
    // The outbox's own record of the checkpoint's event (PostgreSQL), else the witness's.
    const seen = eventId !== null ? { position, eventId } : await this.deps.witness?.load(this.name);
    if (!seen || !log.eventIdAt) return;
    if (comparePositions(seen.position, head) > 0) {
      throw new FanOutNotOnLogError(this.name, new ResumePointNotInLogError(seen.position, seen.eventId, { head }));
    }
    const found = await log.eventIdAt(seen.position);
    if (found !== seen.eventId) throw new FanOutNotOnLogError(this.name, new ResumePointNotInLogError(seen.position, seen.eventId, { eventId: found }));
  }

  async stop(): Promise<void> {
    await this.follower.stop(() => this.storeHandledPosition());
  }

  /** Stores a checkpoint left behind by batches with nothing else to store, so that a restart resumes there. */
  private async storeHandledPosition(): Promise<void> {
    if (this.stale || this.current === null || this.current === this.stored) return;
    try {
      await this.deps.outbox.commitFanOut(this.name, { position: this.current, subscriptions: [], deliveries: [] }, this.clock.now());
      this.stored = this.current;
    } catch (error) {
      // Only a checkpoint: a restart reads those events again, and they have nothing to fan out.
      this.deps.logger.warn({ err: error, position: this.current }, 'webhook fan-out: cannot store the checkpoint at stop');
    }
  }

  private load(state: FanOutState): void {
    this.byId.clear();
    this.byCompany.clear();
    state.subscriptions.forEach((sub) => this.remember(sub));
    this.current = state.position;
    this.stored = state.position;
    this.stale = false;
  }

  private remember(sub: Known): void {
    this.byId.set(sub.subscriptionId, sub);
    let ids = this.byCompany.get(sub.companyId);
    if (!ids) this.byCompany.set(sub.companyId, (ids = new Set()));
    ids.add(sub.subscriptionId);
  }

  private forget(sub: Known): void {
    this.byId.delete(sub.subscriptionId);
    const ids = this.byCompany.get(sub.companyId);
    ids?.delete(sub.subscriptionId);
    if (ids?.size === 0) this.byCompany.delete(sub.companyId);
  }

  /**
   * Fans one batch of the log out into the outbox (one commit). Public so that
   * another event source (a persistent subscription) can feed it; batches must
   * come in log order, each after the stored checkpoint.
   *
   * A batch with nothing to store but its position (no rows, no change to the
   * subscriptions: every batch while no subscription matches) is committed at most
   * once per `CHECKPOINT_ONLY_EVERY_MS` (and at stop) when the fan-out follows the
   * event store's catch-up subscription: each commit is a durable write to the
   * file of the log, which every write's request would otherwise wait behind. A
   * restart after a crash then reads those events again from the older checkpoint,
   * with the same view of the subscriptions, and they have nothing to fan out again.
   * A source that acknowledges what the fan-out handled (the EventStoreDB group)
   * gets every checkpoint stored, so the outbox never falls behind the group.
   */
  async handle(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1];
    if (!last) return;
    if (this.stale) this.load(await this.deps.outbox.loadFanOut(this.name));
    // A batch entirely at or before the stored position changes nothing, and must never
    // move the checkpoint backwards (whatever source repeats it).
    if (this.current !== null && comparePositions(last.position, this.current) <= 0) return;
    this.stale = true;
    const changed = new Map<string, Known>();
    const deliveries: NewDelivery[] = [];
    const erasures: Array<{ readonly companyId: string; readonly subject: ErasedPerson }> = [];
    for (const event of batch) {
      // Already stored (a batch offered again after its commit, or a source that repeats).
      if (this.current !== null && comparePositions(event.position, this.current) <= 0) continue;
      this.fold(event, changed);
      this.fanOut(event, deliveries);
      const erasure = this.deps.erasure?.of(event) ?? null;
      if (erasure) {
        erasures.push(erasure);
        this.eraseFromBatch(deliveries, erasure);
      }
    }
    // The rows stored before this batch, rewritten before the checkpoint moves past the erasure
    // (done again, to no effect, if the batch is handled again after a crash).
    for (const { companyId, subject } of erasures) {
      const rewrite = this.deps.erasure!.rewrite;
      await this.deps.outbox.eraseMentions(companyId, subject.id, (envelope) => rewrite(envelope, subject));
    }
    if (deliveries.length === 0 && changed.size === 0 && !this.deps.source && Date.now() - this.storedAt < CHECKPOINT_ONLY_EVERY_MS) {
      // Nothing in memory changed: only the position moves, stored with a later batch.
      this.current = last.position;
      this.stale = false;
      return;
    }
    await Promise.all([
      this.deps.outbox.commitFanOut(
        this.name,
        { position: last.position, eventId: last.id, subscriptions: [...changed.values()], deliveries },
        this.clock.now(),
      ),
      this.deps.witness?.save(this.name, last.position, last.id),
    ]);
    // Stored: what ended before the checkpoint is no longer needed in memory.
    for (const sub of changed.values()) if (sub.unsubscribedAt !== null) this.forget(sub);
    this.current = last.position;
    this.stored = last.position;
    this.storedAt = Date.now();
    this.stale = false;
    if (deliveries.length > 0) this.deps.onEnqueued?.();
  }

  /** The deliveries of this batch (not stored yet) without the erased person's values. */
  private eraseFromBatch(deliveries: NewDelivery[], { companyId, subject }: { readonly companyId: string; readonly subject: ErasedPerson }): void {
    deliveries.forEach((delivery, index) => {
      if (delivery.companyId !== companyId || !delivery.envelope.includes(subject.id)) return;
      deliveries[index] = { ...delivery, envelope: this.deps.erasure!.rewrite(delivery.envelope, subject) };
    });
  }

  /** Folds a subscription event into the view. */
  private fold(event: RecordedEvent, changed: Map<string, Known>): void {
    const change = this.deps.subscriptionChange(event);
    if (change === null) return;
    if (change.kind === 'malformed') return this.malformed(event);
    if (change.kind === 'subscribed') {
      // Known already: the view was stored past this event; it holds more (perhaps its end) than the event.
      if (this.byId.has(change.subscriptionId)) return;
      const sub: Known = {
        subscriptionId: change.subscriptionId,
        companyId: change.companyId,
        event: change.event,
        targetUrl: change.targetUrl,
        filters: change.filters,
        subscribedAt: event.position,
        unsubscribedAt: null,
      };
      this.remember(sub);
      changed.set(sub.subscriptionId, sub);
    } else {
      const known = this.byId.get(change.subscriptionId);
      if (!known || known.unsubscribedAt !== null) return;
      const ended: Known = { ...known, unsubscribedAt: event.position };
      this.byId.set(ended.subscriptionId, ended);
      changed.set(ended.subscriptionId, ended);
    }
  }

  private fanOut(event: RecordedEvent, deliveries: NewDelivery[]): void {
    // Most companies have no subscription: their events are not derived (decoding, event ids).
    const company = this.deps.companyOf?.(event) ?? null;
    if (company !== null && !this.byCompany.has(company)) return;
    let derived: readonly D[];
    try {
      derived = this.deps.derive(event);
    } catch (error) {
      // A pure mapping that throws on one stored event would otherwise hold every company's webhooks forever.
      this.deps.logger.error(
        { err: error, eventId: event.id, type: event.type, position: event.position },
        'webhook fan-out: cannot derive webhook events from this event; it is skipped',
      );
      return;
    }
    derived.forEach((webhookEvent, ordinal) => {
      const ids = this.byCompany.get(webhookEvent.companyId);
      if (!ids) return;
      let envelope: string | null = null;
      for (const id of ids) {
        const sub = this.byId.get(id)!;
        if (sub.event !== webhookEvent.type || !isActiveAt(sub, event.position)) continue;
        if (!this.deps.matches(sub.filters, webhookEvent)) continue;
        envelope ??= JSON.stringify(this.deps.toEnvelope(webhookEvent));
        deliveries.push({
          subscriptionId: sub.subscriptionId,
          companyId: sub.companyId,
          eventId: webhookEvent.eventId,
          eventType: webhookEvent.type,
          position: event.position,
          ordinal,
          occurredAt: isoOrRecorded(webhookEvent.timestamp, event),
          envelope,
        });
      }
    });
  }

  private malformed(event: RecordedEvent): void {
    this.deps.logger.error(
      { eventId: event.id, type: event.type, position: event.position },
      'webhook fan-out: a subscription event does not decode; it is ignored',
    );
  }
}
