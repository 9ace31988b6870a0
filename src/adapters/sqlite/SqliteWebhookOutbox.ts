import type { Transaction } from 'better-sqlite3';
import {
  MAX_KEPT_ATTEMPTS,
  attemptDetailJson,
  erasedAttempt,
  fromPositionKey,
  positionKey,
  queueKey,
  type AttemptOutcome,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryPage,
  type DeliveryState,
  type DueQueues,
  type DueQueuesSkip,
  type FanOutCommit,
  type FanOutState,
  type FannedOutSubscription,
  type NewDelivery,
  type QueueHealth,
  type RedeliverResult,
  type WebhookFilters,
  type WebhookOutbox,
} from '../../application/ports/WebhookOutbox.js';
import { openSqliteDatabase, truncateWal, type SqliteDatabase } from './openSqliteDatabase.js';
import { LockRetry, whenLockFree, whenLockFreeTranslated, withoutLockWait } from './writeLock.js';
import { prepareOutboxStatements, type DeliveryRow, type HealthRow, type OutboxStatements, type SubscriptionRow } from './webhookOutboxSql.js';

const toDelivery = (row: DeliveryRow): Delivery => ({
  subscriptionId: row.subscription_id,
  companyId: row.company_id,
  eventId: row.event_id,
  eventType: row.event_type,
  position: row.position,
  ordinal: row.ordinal,
  occurredAt: row.occurred_at,
  envelope: row.envelope,
  state: row.state,
  attempts: JSON.parse(row.attempts) as DeliveryAttempt[],
  roundAttempts: row.round_attempts,
  nextAttemptAt: row.next_attempt_at,
  completedAt: row.completed_at,
  failureReason: row.failure_reason,
  createdAt: row.created_at,
});

const toSubscription = (row: SubscriptionRow): FannedOutSubscription => ({
  subscriptionId: row.subscription_id,
  companyId: row.company_id,
  event: row.event,
  targetUrl: row.target_url,
  filters: row.filters === null ? null : (JSON.parse(row.filters) as WebhookFilters),
  subscribedAt: fromPositionKey(row.subscribed_at),
  unsubscribedAt: row.unsubscribed_at === null ? null : fromPositionKey(row.unsubscribed_at),
});

const toHealth = (row: HealthRow): QueueHealth => ({
  status: row.delivery_status,
  loggedStatus: row.logged_status,
  failingSince: row.failing_since,
  pauses: row.pauses,
  holdUntil: row.hold_until,
  version: row.health_version,
});

/** A write of the dispatcher's group commit (an attempt, a queue's settle): true when it changed what it was for. */
interface PendingWrite {
  readonly run: () => boolean;
  readonly resolve: (done: boolean) => void;
  readonly reject: (error: unknown) => void;
}

interface AttemptRecord {
  readonly subscriptionId: string;
  readonly eventId: string;
  readonly attempt: DeliveryAttempt;
  readonly outcome: AttemptOutcome;
  readonly sentEnvelope: string | null;
}

/**
 * The embedded outbox, in the event store's SQLite file: a fan-out batch (rows,
 * subscription view, checkpoint) is one transaction, and every other operation
 * is one statement or one transaction.
 *
 * Every transaction that writes is IMMEDIATE (takes the write lock before its
 * first read): another process on the file (the CLI appending events) may
 * commit between a deferred transaction's read and its write, and SQLite then
 * fails the write at once with SQLITE_BUSY instead of waiting on busy_timeout.
 */
export class SqliteWebhookOutbox implements WebhookOutbox {
  readonly kind = 'sqlite' as const;
  private readonly s: OutboxStatements;
  private readonly transactions: {
    readonly enqueue: Transaction<(deliveries: readonly NewDelivery[], now: string) => number>;
    readonly commit: Transaction<(name: string, commit: FanOutCommit, now: string) => void>;
    readonly redeliver: Transaction<(subscriptionId: string, eventId: string, now: string) => RedeliverResult>;
    readonly recordBatch: Transaction<(batch: readonly PendingWrite[]) => Array<{ ok: boolean } | { error: unknown }>>;
    readonly stop: Transaction<(subscriptionId: string, at: string) => void>;
    readonly setHealth: Transaction<(subscriptionId: string, health: Omit<QueueHealth, 'version'>, expectedVersion: number) => boolean>;
    readonly enable: Transaction<(subscriptionId: string) => boolean>;
    readonly redeliverFailedSince: Transaction<(subscriptionId: string, since: string, now: string) => number>;
  };
  /** The connection's own `synchronous` level (the log's FULL), put back after `withoutOwnFsync`. */
  private readonly synchronous: number;
  /** Attempts recorded (and queues settled) during one turn of the event loop, committed together (group commit). */
  private pendingAttempts: PendingWrite[] = [];
  private attemptsFlushScheduled = false;
  /** The wait of the attempts' group commit for a write lock another connection holds (see writeLock.ts). */
  private readonly attemptsLockRetry = new LockRetry();

  /**
   * On an open (migrated) database, usually the event store's (`SqliteEventStore.db`);
   * `ownsDatabase`: close it with the outbox.
   */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly ownsDatabase = false,
  ) {
    this.s = prepareOutboxStatements(db);
    this.synchronous = db.pragma('synchronous', { simple: true }) as number;
    this.transactions = {
      enqueue: db.transaction((deliveries: readonly NewDelivery[], now: string) => this.insertAll(deliveries, now)),
      commit: db.transaction((name: string, commit: FanOutCommit, now: string) => this.storeFanOutBatch(name, commit, now)),
      redeliver: db.transaction((subscriptionId: string, eventId: string, now: string) => this.requeueOne(subscriptionId, eventId, now)),
      recordBatch: db.transaction((batch: readonly PendingWrite[]) => this.recordEach(batch)),
      stop: db.transaction((subscriptionId: string, at: string) => {
        this.s.stop.run({ at, subscriptionId });
        this.s.cancelPending.run({ reason: 'gone', at, subscriptionId });
        this.s.settle.run({ subscriptionId });
      }),
      setHealth: db.transaction((subscriptionId: string, health: Omit<QueueHealth, 'version'>, expectedVersion: number) => {
        const { status, loggedStatus, failingSince, pauses, holdUntil } = health;
        const changed = this.s.setHealth.run({ subscriptionId, status, loggedStatus, failingSince, pauses, holdUntil, expectedVersion }).changes === 1;
        if (changed) this.s.settle.run({ subscriptionId });
        return changed;
      }),
      redeliverFailedSince: db.transaction((subscriptionId: string, since: string, now: string) => {
        const requeued = this.s.requeueFailedSince.run({ now, subscriptionId, since }).changes;
        if (requeued > 0) this.s.settle.run({ subscriptionId });
        return requeued;
      }),
      enable: db.transaction((subscriptionId: string) => {
        const changed = this.s.enable.run({ subscriptionId }).changes === 1;
        if (changed) this.s.settle.run({ subscriptionId });
        return changed;
      }),
    };
  }

  /**
   * Inserts the rows not stored yet, counts them among the pending rows (one statement for
   * all: no trigger counts inserts), and makes the queues that were empty due; answers how
   * many were new. Every insert into the outbox goes through here.
   */
  private insertAll(deliveries: readonly NewDelivery[], now: string): number {
    let inserted = 0;
    const filled = new Set<string>();
    // A stored event's webhook event goes to every matching subscription: consecutive rows
    // mostly share their queue key, computed once for them.
    let key = '';
    let keyOf: NewDelivery | null = null;
    for (const d of deliveries) {
      if (keyOf === null || d.position !== keyOf.position || d.ordinal !== keyOf.ordinal) {
        key = queueKey(d.position, d.ordinal);
        keyOf = d;
      }
      const { subscriptionId, eventId, companyId, position, ordinal, eventType, occurredAt, envelope } = d;
      const added = this.s.insert.run({ subscriptionId, eventId, companyId, queueKey: key, position, ordinal, eventType, occurredAt, now });
      if (added.changes === 0) continue;
      // The body beside the row (webhook_envelopes): the row changes size with its attempts, the body never moves with it.
      this.s.insertEnvelope.run({ id: added.lastInsertRowid, envelope });
      inserted += 1;
      filled.add(subscriptionId);
    }
    if (inserted > 0) this.s.countInserted.run({ inserted });
    for (const subscriptionId of filled) this.s.fillDue.run({ subscriptionId, now });
    return inserted;
  }

  /**
   * A fan-out batch: the subscriptions it changed, its rows (a subscription first,
   * so that its first rows make its queue due), an ended subscription's rows
   * cancelled, and the checkpoint.
   */
  private storeFanOutBatch(name: string, commit: FanOutCommit, now: string): void {
    for (const sub of commit.subscriptions) {
      this.s.upsertSubscription.run({
        subscriptionId: sub.subscriptionId,
        companyId: sub.companyId,
        event: sub.event,
        targetUrl: sub.targetUrl,
        filters: sub.filters === null ? null : JSON.stringify(sub.filters),
        subscribedAt: positionKey(sub.subscribedAt),
        unsubscribedAt: sub.unsubscribedAt === null ? null : positionKey(sub.unsubscribedAt),
      });
    }
    this.insertAll(commit.deliveries, now);
    for (const sub of commit.subscriptions) {
      if (sub.unsubscribedAt === null) continue;
      this.s.cancelPending.run({ reason: 'unsubscribed', at: now, subscriptionId: sub.subscriptionId });
      this.s.settle.run({ subscriptionId: sub.subscriptionId });
    }
    this.s.saveCheckpoint.run({ name, position: commit.position });
  }

  private requeueOne(subscriptionId: string, eventId: string, now: string): RedeliverResult {
    const row = this.s.get.get({ subscriptionId, eventId });
    if (!row) return 'not_found';
    if (!this.isActive(subscriptionId)) return 'inactive';
    if (row.state === 'pending') return 'pending';
    this.s.requeue.run({ now, subscriptionId, eventId });
    this.s.settle.run({ subscriptionId });
    return 'requeued';
  }

  /**
   * Each record is one statement, which SQLite applies whole or not at all: one that
   * fails leaves the others of the batch in place. An error that ended the transaction
   * itself (disk, I/O) fails the whole batch rather than letting the rest run outside it.
   */
  private recordEach(batch: readonly PendingWrite[]): Array<{ ok: boolean } | { error: unknown }> {
    return batch.map((pending) => {
      try {
        return { ok: pending.run() };
      } catch (error) {
        if (!this.db.inTransaction) throw error;
        return { error };
      }
    });
  }

  /** Records one attempt (in the batch's transaction); false when the row is not pending. */
  private record({ subscriptionId, eventId, attempt, outcome, sentEnvelope }: AttemptRecord): boolean {
    const recorded = this.s.record.run({
      subscriptionId,
      eventId,
      state: outcome.state,
      maxKept: MAX_KEPT_ATTEMPTS,
      at: attempt.at,
      statusCode: attempt.statusCode,
      error: attempt.error,
      latencyMs: attempt.latencyMs,
      nextAttemptAt: outcome.state === 'pending' ? outcome.nextAttemptAt.toISOString() : null,
      completedAt: outcome.state === 'pending' ? null : attempt.at,
      failureReason: outcome.state === 'failed' ? outcome.reason : null,
    });
    if (recorded.changes !== 1) return false;
    const detail = attemptDetailJson(attempt);
    if (detail !== '{}') {
      this.s.recordDetail.run({ at: attempt.at, detail, erasedDetail: attemptDetailJson(erasedAttempt(attempt)), sentEnvelope, subscriptionId, eventId });
    }
    return true;
  }

  /**
   * Rows with their attempts' requests and responses (`webhook_attempt_details`), each
   * detail given to the attempt of its time, in order (the outbox keeps the most recent
   * attempts; details of older ones are left out).
   */
  private withDetails(rows: readonly DeliveryRow[]): Delivery[] {
    if (rows.length === 0) return [];
    const details = new Map<number, Map<string, string[]>>();
    const found = this.db
      .prepare<unknown[], { outbox_id: number; at: string; detail: string }>(
        `SELECT outbox_id, at, detail FROM webhook_attempt_details WHERE outbox_id IN (${rows.map(() => '?').join(', ')}) ORDER BY outbox_id, at, id`,
      )
      .all(...rows.map((row) => row.id));
    for (const { outbox_id, at, detail } of found) {
      const byTime = details.get(outbox_id) ?? new Map<string, string[]>();
      details.set(outbox_id, byTime);
      byTime.set(at, [...(byTime.get(at) ?? []), detail]);
    }
    return rows.map((row) => {
      const delivery = toDelivery(row);
      const byTime = details.get(row.id);
      if (!byTime) return delivery;
      // Several attempts of one millisecond take their details in order; the oldest kept attempts take the last ones of their time.
      const attempts = [...delivery.attempts].reverse().map((attempt) => {
        const left = byTime.get(attempt.at);
        const detail = left?.pop();
        return detail === undefined ? attempt : { ...attempt, ...(JSON.parse(detail) as Partial<DeliveryAttempt>) };
      });
      return { ...delivery, attempts: attempts.reverse() };
    });
  }

  /** One group commit of the attempts recorded; `waitForLock`: on the connection's busy timeout (closing). */
  private flushAttempts(waitForLock = false): void {
    this.attemptsFlushScheduled = false;
    const batch = this.pendingAttempts;
    this.pendingAttempts = [];
    if (batch.length === 0) return;
    let results: Array<{ ok: boolean } | { error: unknown }>;
    try {
      // A power loss can forget attempts, which are then made again (at least once, the same webhook-id).
      const record = () => this.withoutOwnFsync(() => this.transactions.recordBatch.immediate(batch));
      results = waitForLock ? record() : withoutLockWait(this.db, record);
    } catch (error) {
      // Another connection holds the write lock: the group tries again shortly, with what joins it.
      if (!waitForLock && this.attemptsLockRetry.retryLater(error, () => this.flushAttempts())) {
        this.pendingAttempts = batch.concat(this.pendingAttempts);
        this.attemptsFlushScheduled = true;
        return;
      }
      // The whole transaction failed (disk, the lock not had within the wait): nothing was written.
      batch.forEach((pending) => pending.reject(error));
      return;
    }
    this.attemptsLockRetry.succeeded();
    batch.forEach((pending, i) => {
      const result = results[i]!;
      if ('error' in result) pending.reject(result.error);
      else pending.resolve(result.ok);
    });
  }

  /** Opens (and migrates) the file with a connection of its own (when the event store is not SQLite). */
  static open(file: string): SqliteWebhookOutbox {
    return new SqliteWebhookOutbox(openSqliteDatabase(file), true);
  }

  async close(): Promise<void> {
    this.attemptsLockRetry.cancel();
    // The last attempts wait for the lock as long as the busy timeout says: no later try is coming.
    if (this.pendingAttempts.length > 0) this.flushAttempts(true);
    if (this.ownsDatabase && this.db.open) this.db.close();
  }

  async loadFanOut(name: string): Promise<FanOutState> {
    const position = this.s.loadCheckpoint.get({ name })?.position ?? null;
    // Every stored position key is greater than '' (and so than the start of the log).
    const rows = this.s.loadSubscriptions.all({ after: position === null ? '' : positionKey(position) });
    return { position, subscriptions: rows.map(toSubscription) };
  }

  async commitFanOut(name: string, commit: FanOutCommit, now: Date): Promise<void> {
    // IMMEDIATE: take the write lock before reading anything, as the event store's appends do.
    // Without an fsync of its own: everything in it is derived from events the log holds durably,
    // and a power loss forgets it together with its checkpoint (the WAL keeps a prefix of the
    // commits), so the fan-out reads those events again and stores the same rows (at least once).
    await whenLockFree(this.db, () => this.withoutOwnFsync(() => this.transactions.commit.immediate(name, commit, now.toISOString())));
  }

  /**
   * Runs a write transaction at `synchronous=NORMAL`, then puts the connection's level
   * (the log's FULL) back: no fsync of its own on the event loop. For what can be made
   * again: delivery attempts and fan-out batches. A crash of the process loses nothing;
   * the next durable commit on the file (an append) or the WAL's next checkpoint makes it
   * durable, and a power loss before either forgets it, with everything committed after it.
   */
  private withoutOwnFsync<T>(transaction: () => T): T {
    // Not a statement prepared once: SQLite applies this pragma when it is prepared, not when it runs.
    this.db.pragma('synchronous = NORMAL');
    try {
      return transaction();
    } finally {
      this.db.pragma(`synchronous = ${this.synchronous}`);
    }
  }

  async enqueue(deliveries: readonly NewDelivery[], now: Date): Promise<number> {
    return whenLockFree(this.db, () => this.transactions.enqueue.immediate(deliveries, now.toISOString()));
  }

  async head(subscriptionId: string): Promise<Delivery | null> {
    const row = this.s.head.get({ subscriptionId });
    return row ? toDelivery(row) : null;
  }

  async pendingRows(subscriptionId: string, limit: number): Promise<readonly Delivery[]> {
    const size = Math.max(0, Math.floor(limit));
    return size === 0 ? [] : this.s.pending.all({ subscriptionId, limit: size }).map(toDelivery);
  }

  async get(subscriptionId: string, eventId: string): Promise<Delivery | null> {
    const row = this.s.get.get({ subscriptionId, eventId });
    return row ? this.withDetails([row])[0]! : null;
  }

  async dueQueues(now: Date, limit: number, skip: DueQueuesSkip = {}): Promise<DueQueues> {
    const nowIso = now.toISOString();
    const size = Math.max(0, Math.floor(limit));
    const rows =
      size === 0
        ? []
        : this.s.due.all({
            now: nowIso,
            queues: JSON.stringify([...(skip.queues ?? [])]),
            companies: JSON.stringify([...(skip.companies ?? [])]),
            limit: size,
          });
    const due = rows.map((row) => ({ subscriptionId: row.subscription_id, companyId: row.company_id, targetUrl: row.target_url, health: toHealth(row) }));
    const next = this.s.nextDue.get({ now: nowIso })?.at ?? null;
    return { due, nextDueAt: next === null ? null : new Date(next) };
  }

  async settleQueue(subscriptionId: string): Promise<void> {
    // Joins the attempts' group commit: a turn settles its queue right after its last attempt.
    await this.groupWrite(() => {
      this.s.settle.run({ subscriptionId });
      return true;
    });
  }

  async setHealth(subscriptionId: string, health: Omit<QueueHealth, 'version'>, expectedVersion: number): Promise<boolean> {
    return whenLockFree(this.db, () => this.transactions.setHealth.immediate(subscriptionId, health, expectedVersion));
  }

  async health(subscriptionId: string): Promise<QueueHealth | null> {
    const row = this.s.health.get({ subscriptionId });
    return row ? toHealth(row) : null;
  }

  async enableDelivery(subscriptionId: string): Promise<boolean> {
    return whenLockFreeTranslated(this.db, () => this.transactions.enable.immediate(subscriptionId));
  }

  async recordAttempt(
    subscriptionId: string,
    eventId: string,
    attempt: DeliveryAttempt,
    outcome: AttemptOutcome,
    sentEnvelope?: string,
  ): Promise<boolean> {
    return this.groupWrite(() => this.record({ subscriptionId, eventId, attempt, outcome, sentEnvelope: sentEnvelope ?? null }));
  }

  /**
   * Group commit, as the event store's appends: the writes of one event-loop turn share a
   * transaction (one commit), each one statement with its own result; a promise resolves
   * only after the commit.
   */
  private groupWrite(run: () => boolean): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pendingAttempts.push({ run, resolve, reject });
      if (!this.attemptsFlushScheduled) {
        this.attemptsFlushScheduled = true;
        setImmediate(() => this.flushAttempts());
      }
    });
  }

  async stopSubscription(subscriptionId: string, at: Date): Promise<void> {
    await whenLockFree(this.db, () => this.transactions.stop.immediate(subscriptionId, at.toISOString()));
  }

  async listDeliveries(
    subscriptionId: string,
    { page, limit }: { readonly page: number; readonly limit: number },
  ): Promise<DeliveryPage> {
    const size = Math.max(0, Math.floor(limit));
    const offset = Math.max(0, (Math.floor(page) - 1) * size);
    const items = size === 0 ? [] : this.withDetails(this.s.list.all({ subscriptionId, limit: size, offset }));
    return { items, total: this.s.count.get({ subscriptionId })!.total };
  }

  async depthByState(): Promise<Record<DeliveryState, number>> {
    const depth: Record<DeliveryState, number> = { pending: 0, delivered: 0, failed: 0 };
    for (const row of this.s.depth.all()) depth[row.state] = row.total;
    return depth;
  }

  async pruneCompleted(before: Date, limit: number): Promise<number> {
    const size = Math.max(0, Math.floor(limit));
    if (size === 0) return 0;
    // One statement: its own (implicit) transaction, taking the write lock for one bounded batch.
    return whenLockFree(this.db, () => this.s.prune.run({ before: before.toISOString(), limit: size }).changes);
  }

  async eraseMentions(companyId: string, id: string, rewrite: (envelope: string) => string): Promise<number> {
    // Through the company's subscriptions (the rows' index); the connection writes with secure_delete on, and
    // the write-ahead log, which still holds the rows' earlier pages, is emptied after.
    const changed = await whenLockFree(this.db, () =>
      this.db.transaction(() => {
        const rows = this.db
          .prepare<[string, string], { id: number; envelope: string }>(
            `SELECT o.id, e.envelope FROM webhook_outbox o JOIN webhook_envelopes e ON e.id = o.id WHERE o.subscription_id IN (
               SELECT subscription_id FROM webhook_fan_out_subscriptions WHERE company_id = ?) AND instr(e.envelope, ?) > 0`,
          )
          .all(companyId, id);
        const update = this.db.prepare<[string, number]>('UPDATE webhook_envelopes SET envelope = ? WHERE id = ?');
        const details = this.db.prepare<[number], { id: number; at: string; detail: string }>('SELECT id, at, detail FROM webhook_attempt_details WHERE outbox_id = ? ORDER BY id');
        const empty = this.db.prepare<[string, number]>('UPDATE webhook_attempt_details SET detail = ? WHERE id = ?');
        for (const row of rows) {
          update.run(rewrite(row.envelope), row.id);
          // A response may echo the body: it is kept emptied, rewritten where it is. A shorter row stays in its page
          // (its old bytes overwritten); a delete could empty the page enough for SQLite to merge it with its
          // neighbours, and a page rebuilt by a merge keeps old copies of the rows it still holds (decision 206).
          for (const kept of details.all(row.id)) {
            const attempt = JSON.parse(kept.detail) as Partial<DeliveryAttempt>;
            if (attempt.response === undefined) continue;
            const emptied = attemptDetailJson(erasedAttempt({ at: kept.at, statusCode: null, error: null, latencyMs: 0, ...attempt }));
            if (emptied !== kept.detail) empty.run(emptied, kept.id);
          }
        }
        return rows.length;
      }).immediate(),
    );
    if (changed > 0) truncateWal(this.db);
    return changed;
  }

  async forgetCompany(companyId: string): Promise<number> {
    // Through the company's subscriptions (the rows' index); secure_delete overwrites the rows' pages, and the
    // write-ahead log, which still holds them, is emptied after.
    const deleted = await whenLockFree(this.db, () =>
      this.db
        .prepare<[string]>(
          `DELETE FROM webhook_outbox WHERE subscription_id IN (SELECT subscription_id FROM webhook_fan_out_subscriptions WHERE company_id = ?)`,
        )
        .run(companyId),
    );
    if (deleted.changes > 0) truncateWal(this.db);
    return deleted.changes;
  }

  async redeliver(subscriptionId: string, eventId: string, now: Date): Promise<RedeliverResult> {
    return whenLockFreeTranslated(this.db, () => this.transactions.redeliver.immediate(subscriptionId, eventId, now.toISOString()));
  }

  async redeliverFailedSince(subscriptionId: string, since: Date, now: Date): Promise<number> {
    if (!this.isActive(subscriptionId)) return 0;
    return whenLockFreeTranslated(this.db, () => this.transactions.redeliverFailedSince.immediate(subscriptionId, since.toISOString(), now.toISOString()));
  }

  private isActive(subscriptionId: string): boolean {
    const sub = this.s.subscription.get({ subscriptionId });
    return sub !== undefined && sub.unsubscribed_at === null && sub.stopped_at === null;
  }
}
