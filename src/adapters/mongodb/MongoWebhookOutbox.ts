import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import {
  MAX_KEPT_ATTEMPTS,
  fromPositionKey,
  positionKey,
  queueKey,
  type AttemptOutcome,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryFailureReason,
  type DeliveryPage,
  type DeliveryQueue,
  type DeliveryState,
  type DueQueues,
  type FanOutCommit,
  type FanOutState,
  type FannedOutSubscription,
  type NewDelivery,
  type RedeliverResult,
  type WebhookFilters,
  type WebhookOutbox,
} from '../../application/ports/WebhookOutbox.js';

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
}

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
      // Heads of the queues, and listing newest first.
      { key: { state: 1, subscriptionId: 1, queueKey: 1 }, name: 'state_queue' },
      { key: { subscriptionId: 1, queueKey: 1 }, name: 'queue' },
      // Retention: final rows of one state by completion time.
      { key: { state: 1, completedAt: 1 }, name: 'state_completed' },
    ]);
    await outbox.initCounts();
    return outbox;
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
    await this.insert(commit.deliveries, at);
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
                ...(sub.unsubscribedAt === null ? { unsubscribedAt: null } : {}),
              },
              ...(sub.unsubscribedAt === null ? {} : { $set: { unsubscribedAt: positionKey(sub.unsubscribedAt) } }),
            },
            upsert: true,
          },
        })),
        { ordered: true },
      );
      for (const sub of commit.subscriptions) {
        if (sub.unsubscribedAt !== null) await this.cancelPending(sub.subscriptionId, 'unsubscribed', at);
      }
    }
    await this.checkpoints.updateOne({ _id: name }, { $set: { position: commit.position } }, { upsert: true });
  }

  async enqueue(deliveries: readonly NewDelivery[], now: Date): Promise<number> {
    return this.insert(deliveries, now.toISOString());
  }

  /** Inserts the rows that are not stored yet; answers how many were new. */
  private async insert(deliveries: readonly NewDelivery[], now: string): Promise<number> {
    let inserted = 0;
    for (let i = 0; i < deliveries.length; i += CHUNK) {
      const operations: AnyBulkWriteOperation<OutboxDocument>[] = deliveries.slice(i, i + CHUNK).map((d) => ({
        updateOne: {
          filter: { subscriptionId: d.subscriptionId, eventId: d.eventId },
          update: { $setOnInsert: newDocument(d, now) },
          upsert: true,
        },
      }));
      // Unordered: each row is independent. An upsert on the unique key is retried by the server on a race.
      const result = await this.outbox.bulkWrite(operations, { ordered: false });
      inserted += result.upsertedCount;
      await this.count({ pending: result.upsertedCount });
    }
    return inserted;
  }

  private async cancelPending(subscriptionId: string, reason: DeliveryFailureReason, at: string): Promise<void> {
    const result = await this.outbox.updateMany(
      { subscriptionId, state: 'pending' },
      { $set: { state: 'failed', failureReason: reason, completedAt: at, nextAttemptAt: null } },
    );
    await this.count({ pending: -result.modifiedCount, failed: result.modifiedCount });
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

  async dueQueues(now: Date, limit: number, skip: ReadonlySet<string> = new Set()): Promise<DueQueues> {
    const nowIso = now.toISOString();
    // Only when each head is due, not the row itself: the dispatcher reads a turn's rows with `pendingRows`.
    const heads = await this.outbox
      .aggregate<{ head: Pick<OutboxDocument, 'nextAttemptAt'>; sub: SubscriptionDocument }>([
        { $match: { state: 'pending' } },
        { $sort: { state: 1, subscriptionId: 1, queueKey: 1 } },
        { $group: { _id: '$subscriptionId', head: { $first: { nextAttemptAt: '$nextAttemptAt' } } } },
        { $lookup: { from: WEBHOOK_FAN_OUT_SUBSCRIPTIONS_COLLECTION, localField: '_id', foreignField: '_id', as: 'sub' } },
        { $unwind: '$sub' },
        { $match: { 'sub.unsubscribedAt': null, 'sub.stoppedAt': null } },
      ])
      .toArray();
    const open = heads.filter(({ sub }) => !skip.has(sub._id));
    open.sort((a, b) => ((a.head.nextAttemptAt ?? '') < (b.head.nextAttemptAt ?? '') ? -1 : 1));
    const due: DeliveryQueue[] = [];
    let nextDueAt: string | null = null;
    for (const { head, sub } of open) {
      const at = head.nextAttemptAt ?? nowIso;
      if (at <= nowIso) {
        if (due.length < limit) {
          due.push({ subscriptionId: sub._id, companyId: sub.companyId, targetUrl: sub.targetUrl });
        }
      } else if (nextDueAt === null || at < nextDueAt) {
        nextDueAt = at;
      }
    }
    return { due, nextDueAt: nextDueAt === null ? null : new Date(nextDueAt) };
  }

  async recordAttempt(
    subscriptionId: string,
    eventId: string,
    attempt: DeliveryAttempt,
    outcome: AttemptOutcome,
  ): Promise<boolean> {
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
    const result = await this.outbox.updateOne({ subscriptionId, eventId, state: 'pending' }, update);
    if (result.modifiedCount === 1) {
      if (final) await this.count({ pending: -1, [outcome.state]: 1 });
      return true;
    }
    // The 410 that ended the subscription: its own unsubscription may have cancelled the row first (failed stays failed).
    if (outcome.state !== 'failed' || outcome.reason !== 'gone') return false;
    const gone = await this.outbox.updateOne({ subscriptionId, eventId, state: 'failed', failureReason: 'unsubscribed' }, update);
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
    return 'requeued';
  }

  async redeliverFailedSince(subscriptionId: string, since: Date, now: Date): Promise<number> {
    if (!(await this.isActive(subscriptionId))) return 0;
    const result = await this.outbox.updateMany(
      { subscriptionId, state: 'failed', occurredAt: { $gte: since.toISOString() } },
      { $set: requeued(now) },
    );
    await this.count({ failed: -result.modifiedCount, pending: result.modifiedCount });
    return result.modifiedCount;
  }

  async depthByState(): Promise<Record<DeliveryState, number>> {
    const depth: Record<DeliveryState, number> = { pending: 0, delivered: 0, failed: 0 };
    for (const doc of await this.counts.find({}).toArray()) {
      if (STATES.includes(doc._id)) depth[doc._id] = Math.max(0, doc.total);
    }
    return depth;
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
