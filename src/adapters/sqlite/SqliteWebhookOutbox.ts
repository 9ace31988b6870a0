import type { Statement, Transaction } from 'better-sqlite3';
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
import { openSqliteDatabase, type SqliteDatabase } from './openSqliteDatabase.js';
import { translatingSqliteErrors } from './sqliteErrors.js';

interface DeliveryRow {
  subscription_id: string;
  event_id: string;
  company_id: string;
  position: string;
  ordinal: number;
  event_type: string;
  occurred_at: string;
  envelope: string;
  state: DeliveryState;
  attempts: string;
  round_attempts: number;
  next_attempt_at: string | null;
  completed_at: string | null;
  failure_reason: DeliveryFailureReason | null;
  created_at: string;
}

interface SubscriptionRow {
  subscription_id: string;
  company_id: string;
  event: string;
  target_url: string;
  filters: string | null;
  subscribed_at: string;
  unsubscribed_at: string | null;
  stopped_at: string | null;
}

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

/** A queue's head, as `dueQueues` reads it: no row body, only when it is due. */
interface QueueHeadRow {
  subscription_id: string;
  company_id: string;
  target_url: string;
  next_attempt_at: string | null;
}

/** The `record` statement's parameters, in order. */
type RecordParameters = [
  state: DeliveryState,
  maxKept: number,
  at: string,
  statusCode: number | null,
  error: string | null,
  latencyMs: number,
  nextAttemptAt: string | null,
  completedAt: string | null,
  failureReason: string | null,
  subscriptionId: string,
  eventId: string,
];

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
  private readonly s: {
    insert: Statement<[string, string, string, string, string, number, string, string, string, string, string]>;
    upsertSubscription: Statement<[string, string, string, string, string | null, string, string | null]>;
    cancelPending: Statement<[string, string, string]>;
    saveCheckpoint: Statement<[string, string]>;
    loadCheckpoint: Statement<[string], { position: string }>;
    loadSubscriptions: Statement<[string], SubscriptionRow>;
    head: Statement<[string], DeliveryRow>;
    pending: Statement<[string, number], DeliveryRow>;
    get: Statement<[string, string], DeliveryRow>;
    heads: Statement<[], QueueHeadRow>;
    record: Statement<RecordParameters>;
    stop: Statement<[string, string]>;
    list: Statement<[string, number, number], DeliveryRow>;
    count: Statement<[string], { total: number }>;
    depth: Statement<[], { state: DeliveryState; total: number }>;
    prune: Statement<[string, number]>;
    subscription: Statement<[string], SubscriptionRow>;
    requeue: Statement<[string, string, string]>;
    requeueFailedSince: Statement<[string, string, string]>;
  };
  private readonly commitTransaction: Transaction<(name: string, commit: FanOutCommit, now: string) => void>;
  private readonly enqueueTransaction: Transaction<(deliveries: readonly NewDelivery[], now: string) => number>;
  private readonly stopTransaction: Transaction<(subscriptionId: string, at: string) => void>;
  /** Attempts recorded during one turn of the event loop, committed together (group commit). */
  private pendingAttempts: PendingAttempt[] = [];
  private attemptsFlushScheduled = false;
  private readonly recordBatchTransaction: Transaction<(batch: readonly PendingAttempt[]) => Array<{ ok: boolean } | { error: unknown }>>;
  private readonly redeliverTransaction: Transaction<(subscriptionId: string, eventId: string, now: string) => RedeliverResult>;

  /**
   * On an open (migrated) database, usually the event store's (`SqliteEventStore.db`);
   * `ownsDatabase`: close it with the outbox.
   */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly ownsDatabase = false,
  ) {
    const deliveryColumns = `o.subscription_id, o.event_id, o.company_id, o.position, o.ordinal, o.event_type,
      o.occurred_at, o.envelope, o.state, o.attempts, o.round_attempts, o.next_attempt_at, o.completed_at,
      o.failure_reason, o.created_at`;
    this.s = {
      insert: db.prepare(
        `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, queue_key, position, ordinal, event_type,
           occurred_at, envelope, state, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
         ON CONFLICT (subscription_id, event_id) DO NOTHING`,
      ),
      upsertSubscription: db.prepare(
        `INSERT INTO webhook_fan_out_subscriptions
           (subscription_id, company_id, event, target_url, filters, subscribed_at, unsubscribed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (subscription_id) DO UPDATE SET unsubscribed_at = COALESCE(unsubscribed_at, excluded.unsubscribed_at)`,
      ),
      cancelPending: db.prepare(
        `UPDATE webhook_outbox SET state = 'failed', failure_reason = ?, completed_at = ?, next_attempt_at = NULL
         WHERE subscription_id = ? AND state = 'pending'`,
      ),
      saveCheckpoint: db.prepare(
        'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position',
      ),
      loadCheckpoint: db.prepare('SELECT position FROM checkpoints WHERE name = ?'),
      loadSubscriptions: db.prepare(
        `SELECT * FROM webhook_fan_out_subscriptions WHERE unsubscribed_at IS NULL OR unsubscribed_at > ?`,
      ),
      head: db.prepare(
        `SELECT ${deliveryColumns} FROM webhook_outbox o
         WHERE o.subscription_id = ? AND o.state = 'pending' ORDER BY o.queue_key LIMIT 1`,
      ),
      pending: db.prepare(
        `SELECT ${deliveryColumns} FROM webhook_outbox o
         WHERE o.subscription_id = ? AND o.state = 'pending' ORDER BY o.queue_key LIMIT ?`,
      ),
      get: db.prepare(`SELECT ${deliveryColumns} FROM webhook_outbox o WHERE o.subscription_id = ? AND o.event_id = ?`),
      // One head per active subscription, through the partial index of pending rows: only
      // when it is due, not the row itself (the dispatcher reads a turn's rows with `pending`).
      heads: db.prepare(
        `SELECT s.subscription_id, s.company_id, s.target_url, o.next_attempt_at FROM webhook_fan_out_subscriptions s
         JOIN webhook_outbox o ON o.id = (
           SELECT p.id FROM webhook_outbox p
           WHERE p.subscription_id = s.subscription_id AND p.state = 'pending'
           ORDER BY p.queue_key LIMIT 1)
         WHERE s.unsubscribed_at IS NULL AND s.stopped_at IS NULL`,
      ),
      // One statement per attempt: the pending check, the outcome and the attempt appended
      // to the JSON list in SQL (the oldest dropped beyond the kept number), so recording
      // neither reads the row nor parses and rewrites its attempts in JavaScript.
      record: db.prepare(
        `UPDATE webhook_outbox SET
           state = ?,
           attempts = json_insert(
             CASE WHEN json_array_length(attempts) >= ? THEN json_remove(attempts, '$[0]') ELSE attempts END,
             '$[#]',
             json_object('at', ?, 'statusCode', CAST(? AS INTEGER), 'error', ?, 'latencyMs', CAST(? AS INTEGER))),
           round_attempts = round_attempts + 1,
           next_attempt_at = ?,
           completed_at = ?,
           failure_reason = ?
         WHERE subscription_id = ? AND event_id = ? AND state = 'pending'`,
      ),
      stop: db.prepare(
        'UPDATE webhook_fan_out_subscriptions SET stopped_at = ? WHERE subscription_id = ? AND stopped_at IS NULL',
      ),
      list: db.prepare(
        `SELECT ${deliveryColumns} FROM webhook_outbox o WHERE o.subscription_id = ?
         ORDER BY o.queue_key DESC LIMIT ? OFFSET ?`,
      ),
      count: db.prepare('SELECT COUNT(*) AS total FROM webhook_outbox WHERE subscription_id = ?'),
      // Kept by triggers (see the migrations), so a scrape reads three rows, not the table.
      depth: db.prepare('SELECT state, total FROM webhook_outbox_counts'),
      // Through the partial index of final rows by completion time; the triggers keep the counts.
      prune: db.prepare(
        `DELETE FROM webhook_outbox WHERE id IN (
           SELECT id FROM webhook_outbox WHERE state <> 'pending' AND completed_at < ? ORDER BY completed_at LIMIT ?)`,
      ),
      subscription: db.prepare('SELECT * FROM webhook_fan_out_subscriptions WHERE subscription_id = ?'),
      requeue: db.prepare(
        `UPDATE webhook_outbox SET state = 'pending', round_attempts = 0, next_attempt_at = ?, completed_at = NULL,
           failure_reason = NULL
         WHERE subscription_id = ? AND event_id = ? AND state <> 'pending'`,
      ),
      requeueFailedSince: db.prepare(
        `UPDATE webhook_outbox SET state = 'pending', round_attempts = 0, next_attempt_at = ?, completed_at = NULL,
           failure_reason = NULL
         WHERE subscription_id = ? AND state = 'failed' AND occurred_at >= ?`,
      ),
    };

    const insertAll = (deliveries: readonly NewDelivery[], now: string): number => {
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
        const info = this.s.insert.run(
          d.subscriptionId,
          d.eventId,
          d.companyId,
          key,
          d.position,
          d.ordinal,
          d.eventType,
          d.occurredAt,
          d.envelope,
          now,
          now,
        );
        inserted += info.changes;
      }
      return inserted;
    };

    this.enqueueTransaction = db.transaction(insertAll);

    this.commitTransaction = db.transaction((name: string, commit: FanOutCommit, now: string) => {
      insertAll(commit.deliveries, now);
      for (const sub of commit.subscriptions) {
        this.s.upsertSubscription.run(
          sub.subscriptionId,
          sub.companyId,
          sub.event,
          sub.targetUrl,
          sub.filters === null ? null : JSON.stringify(sub.filters),
          positionKey(sub.subscribedAt),
          sub.unsubscribedAt === null ? null : positionKey(sub.unsubscribedAt),
        );
        if (sub.unsubscribedAt !== null) this.s.cancelPending.run('unsubscribed', now, sub.subscriptionId);
      }
      this.s.saveCheckpoint.run(name, commit.position);
    });

    this.redeliverTransaction = db.transaction((subscriptionId: string, eventId: string, now: string): RedeliverResult => {
      const row = this.s.get.get(subscriptionId, eventId);
      if (!row) return 'not_found';
      if (!this.isActive(subscriptionId)) return 'inactive';
      if (row.state === 'pending') return 'pending';
      this.s.requeue.run(now, subscriptionId, eventId);
      return 'requeued';
    });

    // Each record is one statement, which SQLite applies whole or not at all: one that fails
    // leaves the others of the batch in place. An error that ended the transaction itself
    // (disk, I/O) fails the whole batch rather than letting the rest run outside it.
    this.recordBatchTransaction = db.transaction((batch: readonly PendingAttempt[]) =>
      batch.map((p) => {
        try {
          return { ok: this.record(p) };
        } catch (error) {
          if (!db.inTransaction) throw error;
          return { error };
        }
      }),
    );
    this.stopTransaction = db.transaction((subscriptionId: string, at: string) => {
      this.s.stop.run(at, subscriptionId);
      this.s.cancelPending.run('gone', at, subscriptionId);
    });
  }

  /** Records one attempt (in the batch's transaction); false when the row is not pending. */
  private record({ subscriptionId, eventId, attempt, outcome }: PendingAttempt): boolean {
    return (
      this.s.record.run(
        outcome.state,
        MAX_KEPT_ATTEMPTS,
        attempt.at,
        attempt.statusCode,
        attempt.error,
        attempt.latencyMs,
        outcome.state === 'pending' ? outcome.nextAttemptAt.toISOString() : null,
        outcome.state === 'pending' ? null : attempt.at,
        outcome.state === 'failed' ? outcome.reason : null,
        subscriptionId,
        eventId,
      ).changes === 1
    );
  }

  private flushAttempts(): void {
    this.attemptsFlushScheduled = false;
    const batch = this.pendingAttempts;
    this.pendingAttempts = [];
    if (batch.length === 0) return;
    let results: Array<{ ok: boolean } | { error: unknown }>;
    try {
      results = this.recordBatchTransaction.immediate(batch);
    } catch (error) {
      // The whole transaction failed (disk, lock): nothing was written.
      batch.forEach((pending) => pending.reject(error));
      return;
    }
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
    if (this.pendingAttempts.length > 0) this.flushAttempts();
    if (this.ownsDatabase && this.db.open) this.db.close();
  }

  async loadFanOut(name: string): Promise<FanOutState> {
    const position = this.s.loadCheckpoint.get(name)?.position ?? null;
    // Every stored position key is greater than '' (and so than the start of the log).
    const rows = this.s.loadSubscriptions.all(position === null ? '' : positionKey(position));
    return { position, subscriptions: rows.map(toSubscription) };
  }

  async commitFanOut(name: string, commit: FanOutCommit, now: Date): Promise<void> {
    // IMMEDIATE: take the write lock before reading anything, as the event store's appends do.
    this.commitTransaction.immediate(name, commit, now.toISOString());
  }

  async enqueue(deliveries: readonly NewDelivery[], now: Date): Promise<number> {
    return this.enqueueTransaction.immediate(deliveries, now.toISOString());
  }

  async head(subscriptionId: string): Promise<Delivery | null> {
    const row = this.s.head.get(subscriptionId);
    return row ? toDelivery(row) : null;
  }

  async pendingRows(subscriptionId: string, limit: number): Promise<readonly Delivery[]> {
    const size = Math.max(0, Math.floor(limit));
    return size === 0 ? [] : this.s.pending.all(subscriptionId, size).map(toDelivery);
  }

  async get(subscriptionId: string, eventId: string): Promise<Delivery | null> {
    const row = this.s.get.get(subscriptionId, eventId);
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
    this.stopTransaction.immediate(subscriptionId, at.toISOString());
  }

  async listDeliveries(
    subscriptionId: string,
    { page, limit }: { readonly page: number; readonly limit: number },
  ): Promise<DeliveryPage> {
    const size = Math.max(0, Math.floor(limit));
    const offset = Math.max(0, (Math.floor(page) - 1) * size);
    const items = size === 0 ? [] : this.s.list.all(subscriptionId, size, offset).map(toDelivery);
    return { items, total: this.s.count.get(subscriptionId)!.total };
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
    return this.s.prune.run(before.toISOString(), size).changes;
  }

  async redeliver(subscriptionId: string, eventId: string, now: Date): Promise<RedeliverResult> {
    return translatingSqliteErrors(() => this.redeliverTransaction.immediate(subscriptionId, eventId, now.toISOString()));
  }

  async redeliverFailedSince(subscriptionId: string, since: Date, now: Date): Promise<number> {
    if (!this.isActive(subscriptionId)) return 0;
    return translatingSqliteErrors(() => this.s.requeueFailedSince.run(now.toISOString(), subscriptionId, since.toISOString()).changes);
  }

  private isActive(subscriptionId: string): boolean {
    const sub = this.s.subscription.get(subscriptionId);
    return sub !== undefined && sub.unsubscribed_at === null && sub.stopped_at === null;
  }
}
