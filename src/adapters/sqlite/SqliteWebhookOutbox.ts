import type { Transaction } from 'better-sqlite3';
import {
  MAX_KEPT_ATTEMPTS,
  fromPositionKey,
  positionKey,
  queueKey,
  type AttemptOutcome,
  type Delivery,
  type DeliveryAttempt,
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
import { openSqliteDatabase, type SqliteDatabase } from './openSqliteDatabase.js';
import { LockRetry, whenLockFree, whenLockFreeTranslated, withoutLockWait } from './writeLock.js';
import { prepareOutboxStatements, type DeliveryRow, type OutboxStatements, type SubscriptionRow } from './webhookOutboxSql.js';

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

interface PendingAttempt {
  readonly subscriptionId: string;
  readonly eventId: string;
  readonly attempt: DeliveryAttempt;
  readonly outcome: AttemptOutcome;
  readonly resolve: (recorded: boolean) => void;
  readonly reject: (error: unknown) => void;
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
    readonly recordBatch: Transaction<(batch: readonly PendingAttempt[]) => Array<{ ok: boolean } | { error: unknown }>>;
    readonly stop: Transaction<(subscriptionId: string, at: string) => void>;
  };
  /** The connection's own `synchronous` level (the log's FULL), put back after `withoutOwnFsync`. */
  private readonly synchronous: number;
  /** Attempts recorded during one turn of the event loop, committed together (group commit). */
  private pendingAttempts: PendingAttempt[] = [];
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
      recordBatch: db.transaction((batch: readonly PendingAttempt[]) => this.recordEach(batch)),
      stop: db.transaction((subscriptionId: string, at: string) => {
        this.s.stop.run({ at, subscriptionId });
        this.s.cancelPending.run({ reason: 'gone', at, subscriptionId });
      }),
    };
  }

  /** Inserts the rows not stored yet; answers how many were new. */
  private insertAll(deliveries: readonly NewDelivery[], now: string): number {
    let inserted = 0;
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
      inserted += this.s.insert.run({ subscriptionId, eventId, companyId, queueKey: key, position, ordinal, eventType, occurredAt, envelope, now }).changes;
    }
    return inserted;
  }

  /** A fan-out batch: its rows, the subscriptions it changed (cancelling an ended one's rows) and the checkpoint. */
  private storeFanOutBatch(name: string, commit: FanOutCommit, now: string): void {
    this.insertAll(commit.deliveries, now);
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
      if (sub.unsubscribedAt !== null) this.s.cancelPending.run({ reason: 'unsubscribed', at: now, subscriptionId: sub.subscriptionId });
    }
    this.s.saveCheckpoint.run({ name, position: commit.position });
  }

  private requeueOne(subscriptionId: string, eventId: string, now: string): RedeliverResult {
    const row = this.s.get.get({ subscriptionId, eventId });
    if (!row) return 'not_found';
    if (!this.isActive(subscriptionId)) return 'inactive';
    if (row.state === 'pending') return 'pending';
    this.s.requeue.run({ now, subscriptionId, eventId });
    return 'requeued';
  }

  /**
   * Each record is one statement, which SQLite applies whole or not at all: one that
   * fails leaves the others of the batch in place. An error that ended the transaction
   * itself (disk, I/O) fails the whole batch rather than letting the rest run outside it.
   */
  private recordEach(batch: readonly PendingAttempt[]): Array<{ ok: boolean } | { error: unknown }> {
    return batch.map((pending) => {
      try {
        return { ok: this.record(pending) };
      } catch (error) {
        if (!this.db.inTransaction) throw error;
        return { error };
      }
    });
  }

  /** Records one attempt (in the batch's transaction); false when the row is not pending. */
  private record({ subscriptionId, eventId, attempt, outcome }: PendingAttempt): boolean {
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
    return recorded.changes === 1;
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
    return row ? toDelivery(row) : null;
  }

  async dueQueues(now: Date, limit: number, skip: ReadonlySet<string> = new Set()): Promise<DueQueues> {
    const nowIso = now.toISOString();
    const due: DeliveryQueue[] = [];
    let nextDueAt: string | null = null;
    const heads = this.s.heads.all().filter((row) => !skip.has(row.subscription_id));
    heads.sort((a, b) => ((a.next_attempt_at ?? '') < (b.next_attempt_at ?? '') ? -1 : 1));
    for (const row of heads) {
      const at = row.next_attempt_at ?? nowIso;
      if (at <= nowIso) {
        if (due.length < limit) {
          due.push({ subscriptionId: row.subscription_id, companyId: row.company_id, targetUrl: row.target_url });
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
    // Group commit, as the event store's appends: the attempts of one event-loop turn share a
    // transaction (one fsync), each in its own savepoint with its own result; a promise
    // resolves only after the commit.
    return new Promise((resolve, reject) => {
      this.pendingAttempts.push({ subscriptionId, eventId, attempt, outcome, resolve, reject });
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
    const items = size === 0 ? [] : this.s.list.all({ subscriptionId, limit: size, offset }).map(toDelivery);
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

  async redeliver(subscriptionId: string, eventId: string, now: Date): Promise<RedeliverResult> {
    return whenLockFreeTranslated(this.db, () => this.transactions.redeliver.immediate(subscriptionId, eventId, now.toISOString()));
  }

  async redeliverFailedSince(subscriptionId: string, since: Date, now: Date): Promise<number> {
    if (!this.isActive(subscriptionId)) return 0;
    return whenLockFreeTranslated(
      this.db,
      () => this.s.requeueFailedSince.run({ now: now.toISOString(), subscriptionId, since: since.toISOString() }).changes,
    );
  }

  private isActive(subscriptionId: string): boolean {
    const sub = this.s.subscription.get({ subscriptionId });
    return sub !== undefined && sub.unsubscribed_at === null && sub.stopped_at === null;
  }
}
