import type { AnyBulkWriteOperation, Collection, Db, Filter } from 'mongodb';
import {
  MAX_KEPT_ATTEMPTS,
  fromPositionKey,
  positionKey,
  queueKey,
  type AttemptOutcome,
  type Delivery,
  type DeliveryAttempt,
  erasedAttempt,
  type DeliveryFailureReason,
  type DeliveryPage,
  type DeliveryQueue,
  type DeliveryState,
  type DueQueues,
  type DueQueuesSkip,
  type FanOutCommit,
  type FanOutState,
  type FannedOutSubscription,
  type NewDelivery,
  type QueueHealth,
  type QueueStatus,
  type RedeliverResult,
  type WebhookFilters,
  type WebhookOutbox,
} from '../../application/ports/WebhookOutbox.js';
import { escapeRegex } from './escapeRegex.js';

/** Collections beside the read models. */
export const WEBHOOK_OUTBOX_COLLECTION = 'webhookOutbox';
export const WEBHOOK_FAN_OUT_SUBSCRIPTIONS_COLLECTION = 'webhookFanOutSubscriptions';
/** Rows per state (`{_id: state, total}`), kept as rows are written, for metrics. */
export const WEBHOOK_OUTBOX_COUNTS_COLLECTION = 'webhookOutboxCounts';
/** The checkpoints collection the read models use too (`{_id: name, position}`). */
const CHECKPOINTS = 'checkpoints';
/** Largest bulk write sent at once. */
const CHUNK = 1000;

interface OutboxDocument {
  subscriptionId: string;
  eventId: string;
  companyId: string;
  /** Queue order (`queueKey`): position zero-padded, then ordinal. */
  queueKey: string;
  position: string;
  ordinal: number;
  eventType: string;
  occurredAt: string;
  envelope: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  roundAttempts: number;
  /** ISO 8601 UTC (fixed width, so string order is time order). */
  nextAttemptAt: string | null;
  completedAt: string | null;
  failureReason: DeliveryFailureReason | null;
  createdAt: string;
}

interface SubscriptionDocument {
  /** The subscription id. */
  _id: string;
  companyId: string;
  event: string;
  targetUrl: string;
  filters: WebhookFilters;
  /** Zero-padded positions (`positionKey`). */
  subscribedAt: string;
  unsubscribedAt: string | null;
  stoppedAt: string | null;
  // The queue's health and due time (absent on documents of an earlier release: healthy, and
  // set from the queue's head at start).
  deliveryStatus?: QueueStatus;
  loggedStatus?: QueueStatus;
  failingSince?: string | null;
  pauses?: number;
  holdUntil?: string | null;
  healthVersion?: number | null;
  /** When the queue is next due (ISO 8601 UTC), or null (see `WebhookOutbox.dueQueues`). */
  dueAt?: string | null;
  /**
   * Moved by every write that changes the queue's due time: a settle computed from a head
   * read before another write moved it is refused, and computed again.
   */
  queueVersion?: number | null;
}

const toHealth = (doc: SubscriptionDocument): QueueHealth => ({
  status: doc.deliveryStatus ?? 'active',
  loggedStatus: doc.loggedStatus ?? 'active',
  failingSince: doc.failingSince ?? null,
  pauses: doc.pauses ?? 0,
  holdUntil: doc.holdUntil ?? null,
  version: doc.healthVersion ?? 0,
});

/** A subscription whose queue is never due: ended, stopped (410) or disabled. */
const isClosed = (doc: SubscriptionDocument): boolean =>
  (doc.unsubscribedAt ?? null) !== null || (doc.stoppedAt ?? null) !== null || doc.deliveryStatus === 'disabled';

/** The same, as an aggregation expression on the document. */
const CLOSED = {
  $or: [
    { $ne: [{ $ifNull: ['$unsubscribedAt', null] }, null] },
    { $ne: [{ $ifNull: ['$stoppedAt', null] }, null] },
    { $eq: ['$deliveryStatus', 'disabled'] },
  ],
};

const NEXT_QUEUE_VERSION = { $add: [{ $ifNull: ['$queueVersion', 0] }, 1] };

/**
 * The subscriptions whose queues are due at `nowIso`, without those `skip` names;
 * read in `DUE_ORDER` through the subscriptions' `due` index.
 */
export const dueQueuesFilter = (nowIso: string, skip: DueQueuesSkip) => {
  const queues = [...(skip.queues ?? [])];
  const companies = [...(skip.companies ?? [])];
  return {
    dueAt: { $lte: nowIso },
    ...(queues.length > 0 ? { _id: { $nin: queues } } : {}),
    ...(companies.length > 0 ? { companyId: { $nin: companies } } : {}),
  };
};
export const DUE_ORDER = { dueAt: 1 } as const;

/** Attempts at settling a queue whose due time other writes keep moving. */
const SETTLE_ATTEMPTS = 10;

interface CountDocument {
  _id: DeliveryState;
  total: number;
}

const STATES: readonly DeliveryState[] = ['pending', 'delivered', 'failed'];

/** Changes to the per-state counts: a row moved, arrived or left. */
type CountChanges = Partial<Record<DeliveryState, number>>;

interface CheckpointDocument {
  _id: string;
  position: string;
}

const NO_ID = { _id: 0 } as const;

const toDelivery = (doc: OutboxDocument): Delivery => ({
  subscriptionId: doc.subscriptionId,
  companyId: doc.companyId,
  eventId: doc.eventId,
  eventType: doc.eventType,
  position: doc.position,
  ordinal: doc.ordinal,
  occurredAt: doc.occurredAt,
  envelope: doc.envelope,
  state: doc.state,
  attempts: doc.attempts,
  roundAttempts: doc.roundAttempts,
  nextAttemptAt: doc.nextAttemptAt,
  completedAt: doc.completedAt,
  failureReason: doc.failureReason,
  createdAt: doc.createdAt,
});

const toSubscription = (doc: SubscriptionDocument): FannedOutSubscription => ({
  subscriptionId: doc._id,
  companyId: doc.companyId,
  event: doc.event,
  targetUrl: doc.targetUrl,
  filters: doc.filters,
  subscribedAt: fromPositionKey(doc.subscribedAt),
  unsubscribedAt: doc.unsubscribedAt === null ? null : fromPositionKey(doc.unsubscribedAt),
});

const newDocument = (d: NewDelivery, now: string): OutboxDocument => ({
  subscriptionId: d.subscriptionId,
  eventId: d.eventId,
  companyId: d.companyId,
  queueKey: queueKey(d.position, d.ordinal),
  position: d.position,
  ordinal: d.ordinal,
  eventType: d.eventType,
  occurredAt: d.occurredAt,
  envelope: d.envelope,
  state: 'pending',
  attempts: [],
  roundAttempts: 0,
  nextAttemptAt: now,
  completedAt: null,
  failureReason: null,
  createdAt: now,
});

/**
 * The production outbox, in the read models' MongoDB database.
 *
 * A fan-out batch needs no multi-document transaction: every write is idempotent
 * (rows are inserted only when absent, an unsubscription is only ever set, never
 * cleared) and the checkpoint is written last, so a batch cut short by a crash is
 * folded and written again from the previous checkpoint with the same result.
 * The subscription view keeps the log positions of each subscribe and
 * unsubscribe, so the replay matches events to subscriptions exactly as the
 * first pass did.
 */
export class MongoWebhookOutbox implements WebhookOutbox {
  readonly kind = 'mongodb' as const;
  private readonly outbox: Collection<OutboxDocument>;
  private readonly subscriptions: Collection<SubscriptionDocument>;
  private readonly checkpoints: Collection<CheckpointDocument>;
  private readonly counts: Collection<CountDocument>;

  private constructor(db: Db) {
    this.counts = db.collection<CountDocument>(WEBHOOK_OUTBOX_COUNTS_COLLECTION);
    this.outbox = db.collection<OutboxDocument>(WEBHOOK_OUTBOX_COLLECTION);
    this.subscriptions = db.collection<SubscriptionDocument>(WEBHOOK_FAN_OUT_SUBSCRIPTIONS_COLLECTION);
    this.checkpoints = db.collection<CheckpointDocument>(CHECKPOINTS);
  }

  /** The outbox in `db` (the read models' database), with its indexes in place. */
  static async create(db: Db): Promise<MongoWebhookOutbox> {
    const outbox = new MongoWebhookOutbox(db);
    await outbox.outbox.createIndexes([
      { key: { subscriptionId: 1, eventId: 1 }, unique: true, name: 'subscription_event' },
      // The head of a queue (`settleQueue`, `pendingRows`).
      { key: { state: 1, subscriptionId: 1, queueKey: 1 }, name: 'state_queue' },
      { key: { subscriptionId: 1, queueKey: 1 }, name: 'queue' },
      // Retention: final rows of one state by completion time.
      { key: { state: 1, completedAt: 1 }, name: 'state_completed' },
    ]);
    // The due queues, in due order (`dueQueues`): the subscriptions, never the rows.
    await outbox.subscriptions.createIndexes([{ key: { dueAt: 1 }, name: 'due' }]);
    await outbox.initCounts();
    await outbox.initDueTimes();
    return outbox;
  }

  /**
   * The due times of subscriptions written before they existed, set once from each
   * queue's head (one read per such subscription; none after the first start).
   */
  private async initDueTimes(): Promise<void> {
    const older = await this.subscriptions.find({ dueAt: { $exists: false } }, { projection: { _id: 1 } }).toArray();
    for (const { _id } of older) await this.settleQueue(_id);
  }

  /**
   * The per-state counts start from one count of the rows, once (a database written
   * before the counts existed); from then on every write moves them. Each count is an
   * index-only count on `state`.
   */
  private async initCounts(): Promise<void> {
    const present = new Set((await this.counts.find({}, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id));
    for (const state of STATES.filter((s) => !present.has(s))) {
      const total = await this.outbox.countDocuments({ state });
      // Another process may have created it meanwhile: theirs stands.
      await this.counts.updateOne({ _id: state }, { $setOnInsert: { total } }, { upsert: true });
    }
  }

  /**
   * Moves the per-state counts after a write, by what the write reported. Not in the
   * write's transaction (the outbox uses none): a process that dies between the two
   * leaves the figure off by that one write's rows (docs/operators/metrics.md).
   */
  private async count(changes: CountChanges): Promise<void> {
    const operations = STATES.filter((state) => (changes[state] ?? 0) !== 0).map((state) => ({
      updateOne: { filter: { _id: state }, update: { $inc: { total: changes[state]! } }, upsert: true },
    }));
    if (operations.length > 0) await this.counts.bulkWrite(operations, { ordered: false });
  }

  async loadFanOut(name: string): Promise<FanOutState> {
    const checkpoint = await this.checkpoints.findOne({ _id: name });
    const position = checkpoint?.position ?? null;
    const subscriptions = await this.subscriptions
      .find(
        position === null
          ? {}
          : { $or: [{ unsubscribedAt: null }, { unsubscribedAt: { $gt: positionKey(position) } }] },
      )
      .toArray();
    return { position, subscriptions: subscriptions.map(toSubscription) };
  }

  async commitFanOut(name: string, commit: FanOutCommit, now: Date): Promise<void> {
    const at = now.toISOString();
    // The subscriptions first, so that their first rows make their queues due.
    if (commit.subscriptions.length > 0) {
      await this.subscriptions.bulkWrite(
        commit.subscriptions.map((sub) => ({
          updateOne: {
            filter: { _id: sub.subscriptionId },
            update: {
              $setOnInsert: {
                companyId: sub.companyId,
                event: sub.event,
                targetUrl: sub.targetUrl,
                filters: sub.filters,
                subscribedAt: positionKey(sub.subscribedAt),
                stoppedAt: null,
                dueAt: null,
                queueVersion: 0,
                ...(sub.unsubscribedAt === null ? { unsubscribedAt: null } : {}),
              },
              ...(sub.unsubscribedAt === null ? {} : { $set: { unsubscribedAt: positionKey(sub.unsubscribedAt) } }),
            },
            upsert: true,
          },
        })),
        { ordered: true },
      );
    }
    await this.insert(commit.deliveries, at);
    for (const sub of commit.subscriptions) {
      if (sub.unsubscribedAt !== null) await this.cancelPending(sub.subscriptionId, 'unsubscribed', at);
    }
    await this.checkpoints.updateOne({ _id: name }, { $set: { position: commit.position } }, { upsert: true });
  }

  async enqueue(deliveries: readonly NewDelivery[], now: Date): Promise<number> {
    return this.insert(deliveries, now.toISOString());
  }

  /** Inserts the rows that are not stored yet, making the queues that were empty due; answers how many were new. */
  private async insert(deliveries: readonly NewDelivery[], now: string): Promise<number> {
    let inserted = 0;
    const filled = new Set<string>();
    for (let i = 0; i < deliveries.length; i += CHUNK) {
      const chunk = deliveries.slice(i, i + CHUNK);
      const operations: AnyBulkWriteOperation<OutboxDocument>[] = chunk.map((d) => ({
        updateOne: {
          filter: { subscriptionId: d.subscriptionId, eventId: d.eventId },
          update: { $setOnInsert: newDocument(d, now) },
          upsert: true,
        },
      }));
      // Unordered: each row is independent. An upsert on the unique key is retried by the server on a race.
      const result = await this.outbox.bulkWrite(operations, { ordered: false });
      inserted += result.upsertedCount;
      for (const index of Object.keys(result.upsertedIds)) filled.add(chunk[Number(index)]!.subscriptionId);
      await this.count({ pending: result.upsertedCount });
    }
    for (const subscriptionId of filled) await this.fillDue(subscriptionId, now);
    return inserted;
  }

  /**
   * New rows in a queue: due at `now` (or the end of its hold) when it was empty;
   * a queue with a head keeps its due time (rows go behind it). Its version moves
   * either way, so a settle that read the queue before these rows computes again.
   */
  private async fillDue(subscriptionId: string, now: string): Promise<void> {
    await this.subscriptions.updateOne({ _id: subscriptionId }, [
      {
        $set: {
          dueAt: { $cond: [{ $or: [CLOSED, { $ne: [{ $ifNull: ['$dueAt', null] }, null] }] }, '$dueAt', { $max: [{ $literal: now }, '$holdUntil'] }] },
          queueVersion: NEXT_QUEUE_VERSION,
        },
      },
    ]);
  }

  /** A redelivered row may come before the head: the queue is due at `now` at the latest (or at the end of its hold). */
  private async lowerDue(subscriptionId: string, now: string): Promise<void> {
    await this.subscriptions.updateOne({ _id: subscriptionId }, [
      {
        $set: {
          dueAt: { $cond: [CLOSED, '$dueAt', { $min: ['$dueAt', { $max: [{ $literal: now }, '$holdUntil'] }] }] },
          queueVersion: NEXT_QUEUE_VERSION,
        },
      },
    ]);
  }

  private async cancelPending(subscriptionId: string, reason: DeliveryFailureReason, at: string): Promise<void> {
    const result = await this.outbox.updateMany(
      { subscriptionId, state: 'pending' },
      { $set: { state: 'failed', failureReason: reason, completedAt: at, nextAttemptAt: null } },
    );
    await this.count({ pending: -result.modifiedCount, failed: result.modifiedCount });
    await this.settleQueue(subscriptionId);
  }

  async head(subscriptionId: string): Promise<Delivery | null> {
    const doc = await this.outbox.findOne(
      { state: 'pending', subscriptionId },
      { sort: { queueKey: 1 }, projection: NO_ID },
    );
    return doc ? toDelivery(doc) : null;
  }

  async pendingRows(subscriptionId: string, limit: number): Promise<readonly Delivery[]> {
    const size = Math.max(0, Math.floor(limit));
    if (size === 0) return [];
    const docs = await this.outbox
      .find({ state: 'pending', subscriptionId }, { sort: { queueKey: 1 }, limit: size, projection: NO_ID })
      .toArray();
    return docs.map(toDelivery);
  }

  async get(subscriptionId: string, eventId: string): Promise<Delivery | null> {
    const doc = await this.outbox.findOne({ subscriptionId, eventId }, { projection: NO_ID });
    return doc ? toDelivery(doc) : null;
  }

  async dueQueues(now: Date, limit: number, skip: DueQueuesSkip = {}): Promise<DueQueues> {
    const nowIso = now.toISOString();
    const size = Math.max(0, Math.floor(limit));
    // Through the `due` index of the subscriptions: never the rows of a queue.
    const docs = size === 0 ? [] : await this.subscriptions.find(dueQueuesFilter(nowIso, skip), { sort: DUE_ORDER, limit: size }).toArray();
    const next = await this.subscriptions.findOne({ dueAt: { $gt: nowIso } }, { sort: { dueAt: 1 }, projection: { dueAt: 1 } });
    const due: DeliveryQueue[] = docs.map((doc) => ({ subscriptionId: doc._id, companyId: doc.companyId, targetUrl: doc.targetUrl, health: toHealth(doc) }));
    return { due, nextDueAt: typeof next?.dueAt === 'string' ? new Date(next.dueAt) : null };
  }

  async settleQueue(subscriptionId: string): Promise<void> {
    for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
      const sub = await this.subscriptions.findOne({ _id: subscriptionId });
      if (!sub) return;
      let dueAt: string | null = null;
      if (!isClosed(sub)) {
        const head = await this.outbox.findOne(
          { state: 'pending', subscriptionId },
          { sort: { queueKey: 1 }, projection: { nextAttemptAt: 1 } },
        );
        if (head) dueAt = [head.nextAttemptAt ?? '', sub.holdUntil ?? ''].reduce((a, b) => (a > b ? a : b));
      }
      // Refused when another write moved the queue meanwhile (its version): read it again.
      const version = sub.queueVersion ?? null;
      const { matchedCount } = await this.subscriptions.updateOne(
        { _id: subscriptionId, queueVersion: version },
        { $set: { dueAt, queueVersion: (version ?? 0) + 1 } },
      );
      if (matchedCount === 1) return;
    }
    throw new Error(`Webhook queue ${subscriptionId}: its due time kept moving while being settled`);
  }

  async setHealth(subscriptionId: string, health: Omit<QueueHealth, 'version'>, expectedVersion: number): Promise<boolean> {
    const { matchedCount } = await this.subscriptions.updateOne(
      // A document of an earlier release has no version: it is at 0.
      { _id: subscriptionId, healthVersion: expectedVersion === 0 ? { $in: [0, null] } : expectedVersion },
      {
        $set: {
          deliveryStatus: health.status,
          loggedStatus: health.loggedStatus,
          failingSince: health.failingSince,
          pauses: health.pauses,
          holdUntil: health.holdUntil,
          healthVersion: expectedVersion + 1,
        },
      },
    );
    if (matchedCount === 0) return false;
    await this.settleQueue(subscriptionId);
    return true;
  }

  async health(subscriptionId: string): Promise<QueueHealth | null> {
    const doc = await this.subscriptions.findOne({ _id: subscriptionId });
    return doc ? toHealth(doc) : null;
  }

  async enableDelivery(subscriptionId: string): Promise<boolean> {
    const { matchedCount } = await this.subscriptions.updateOne({ _id: subscriptionId, unsubscribedAt: null, stoppedAt: null }, [
      {
        $set: {
          deliveryStatus: 'active',
          loggedStatus: 'active',
          failingSince: null,
          pauses: 0,
          holdUntil: null,
          healthVersion: { $add: [{ $ifNull: ['$healthVersion', 0] }, 1] },
        },
      },
    ]);
    if (matchedCount === 0) return false;
    await this.settleQueue(subscriptionId);
    return true;
  }

  async recordAttempt(
    subscriptionId: string,
    eventId: string,
    attempt: DeliveryAttempt,
    outcome: AttemptOutcome,
    sentEnvelope?: string,
  ): Promise<boolean> {
    // The response kept as it came only while the row's envelope is the one sent (an erasure may have rewritten it meanwhile).
    if (sentEnvelope !== undefined && attempt.response !== undefined) {
      if (await this.record({ subscriptionId, eventId, envelope: sentEnvelope }, attempt, outcome)) return true;
      return this.record({ subscriptionId, eventId, envelope: { $ne: sentEnvelope } }, erasedAttempt(attempt), outcome);
    }
    return this.record({ subscriptionId, eventId }, attempt, outcome);
  }

  /** Records `attempt` on the row `row` names, if pending (or the cancelled row of a 410). */
  private async record(row: Filter<OutboxDocument>, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean> {
    const final = outcome.state !== 'pending';
    const update = {
      $push: { attempts: { $each: [attempt], $slice: -MAX_KEPT_ATTEMPTS } },
      $inc: { roundAttempts: 1 },
      $set: {
        state: outcome.state,
        nextAttemptAt: outcome.state === 'pending' ? outcome.nextAttemptAt.toISOString() : null,
        completedAt: final ? attempt.at : null,
        failureReason: outcome.state === 'failed' ? outcome.reason : null,
      },
    };
    const result = await this.outbox.updateOne({ ...row, state: 'pending' }, update);
    if (result.modifiedCount === 1) {
      if (final) await this.count({ pending: -1, [outcome.state]: 1 });
      return true;
    }
    // The 410 that ended the subscription: its own unsubscription may have cancelled the row first (failed stays failed).
    if (outcome.state !== 'failed' || outcome.reason !== 'gone') return false;
    const gone = await this.outbox.updateOne({ ...row, state: 'failed', failureReason: 'unsubscribed' }, update);
    return gone.modifiedCount === 1;
  }

  async stopSubscription(subscriptionId: string, at: Date): Promise<void> {
    const iso = at.toISOString();
    await this.subscriptions.updateOne({ _id: subscriptionId, stoppedAt: null }, { $set: { stoppedAt: iso } });
    await this.cancelPending(subscriptionId, 'gone', iso);
  }

  async listDeliveries(
    subscriptionId: string,
    { page, limit }: { readonly page: number; readonly limit: number },
  ): Promise<DeliveryPage> {
    const size = Math.max(0, Math.floor(limit));
    const skip = Math.max(0, (Math.floor(page) - 1) * size);
    const [items, total] = await Promise.all([
      size === 0
        ? Promise.resolve([])
        : this.outbox.find({ subscriptionId }, { sort: { queueKey: -1 }, skip, limit: size, projection: NO_ID }).toArray(),
      this.outbox.countDocuments({ subscriptionId }),
    ]);
    return { items: items.map(toDelivery), total };
  }

  async redeliver(subscriptionId: string, eventId: string, now: Date): Promise<RedeliverResult> {
    const row = await this.outbox.findOne({ subscriptionId, eventId }, { projection: { state: 1 } });
    if (!row) return 'not_found';
    if (!(await this.isActive(subscriptionId))) return 'inactive';
    // The row as it was, to move the count of the state it leaves.
    const before = await this.outbox.findOneAndUpdate(
      { subscriptionId, eventId, state: { $ne: 'pending' } },
      { $set: requeued(now) },
      { returnDocument: 'before', projection: { state: 1 } },
    );
    if (before === null) return 'pending';
    await this.count({ [before.state]: -1, pending: 1 });
    await this.lowerDue(subscriptionId, now.toISOString());
    return 'requeued';
  }

  async redeliverFailedSince(subscriptionId: string, since: Date, now: Date): Promise<number> {
    if (!(await this.isActive(subscriptionId))) return 0;
    const result = await this.outbox.updateMany(
      { subscriptionId, state: 'failed', occurredAt: { $gte: since.toISOString() } },
      { $set: requeued(now) },
    );
    await this.count({ failed: -result.modifiedCount, pending: result.modifiedCount });
    if (result.modifiedCount > 0) await this.lowerDue(subscriptionId, now.toISOString());
    return result.modifiedCount;
  }

  async depthByState(): Promise<Record<DeliveryState, number>> {
    const depth: Record<DeliveryState, number> = { pending: 0, delivered: 0, failed: 0 };
    for (const doc of await this.counts.find({}).toArray()) {
      if (STATES.includes(doc._id)) depth[doc._id] = Math.max(0, doc.total);
    }
    return depth;
  }

  async eraseMentions(companyId: string, id: string, rewrite: (envelope: string) => string): Promise<number> {
    // Envelopes are JSON text: the id is looked for in it as text, among the company's rows.
    const found = await this.outbox
      .find({ companyId, envelope: { $regex: escapeRegex(id) } }, { projection: { _id: 1, envelope: 1, attempts: 1 } })
      .toArray();
    let changed = 0;
    for (const doc of found) {
      // A receiver may have echoed the body back: the attempts' responses go with it.
      const updated = await this.outbox.updateOne({ _id: doc._id }, { $set: { envelope: rewrite(doc.envelope), attempts: doc.attempts.map(erasedAttempt) } });
      changed += updated.modifiedCount;
    }
    return changed;
  }

  async forgetCompany(companyId: string): Promise<number> {
    let forgotten = 0;
    // One state at a time, so that the counts by state follow what was deleted.
    for (const state of STATES) {
      const { deletedCount } = await this.outbox.deleteMany({ companyId, state });
      if (deletedCount > 0) await this.count({ [state]: -deletedCount });
      forgotten += deletedCount;
    }
    return forgotten;
  }

  async pruneCompleted(before: Date, limit: number): Promise<number> {
    let left = Math.max(0, Math.floor(limit));
    let pruned = 0;
    const cutoff = before.toISOString();
    // One state at a time, through the (state, completedAt) index: oldest first, at most `limit` in all.
    for (const state of ['delivered', 'failed'] as const) {
      if (left === 0) break;
      const ids = (
        await this.outbox
          .find({ state, completedAt: { $lt: cutoff } }, { sort: { completedAt: 1 }, limit: left, projection: { _id: 1 } })
          .toArray()
      ).map((doc) => doc._id);
      if (ids.length === 0) continue;
      // The state in the filter: a row redelivered meanwhile (pending again) stays.
      const { deletedCount } = await this.outbox.deleteMany({ _id: { $in: ids }, state });
      await this.count({ [state]: -deletedCount });
      pruned += deletedCount;
      left -= ids.length;
    }
    return pruned;
  }

  /** The client belongs to the read-model store, which closes it. */
  async close(): Promise<void> {}

  private async isActive(subscriptionId: string): Promise<boolean> {
    const sub = await this.subscriptions.findOne({ _id: subscriptionId });
    return sub !== null && sub.unsubscribedAt === null && sub.stoppedAt === null;
  }
}

const requeued = (now: Date) =>
  ({
    state: 'pending',
    roundAttempts: 0,
    nextAttemptAt: now.toISOString(),
    completedAt: null,
    failureReason: null,
  }) as const;
