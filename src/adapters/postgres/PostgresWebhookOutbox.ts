import type pg from 'pg';
import {
  MAX_KEPT_ATTEMPTS,
  attemptDetailJson,
  erasedAttempt,
  type AttemptOutcome,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryFailureReason,
  type DeliveryPage,
  type DeliveryState,
  type DueQueues,
  type DueQueuesSkip,
  type FanOutCommit,
  type FanOutState,
  type NewDelivery,
  type QueueHealth,
  type RedeliverResult,
  type WebhookOutbox,
} from '../../application/ports/WebhookOutbox.js';
import { inTransaction, query, withConnection } from './postgresPool.js';
import {
  DELIVERY_COLUMNS,
  HEALTH_COLUMNS,
  SUBSCRIPTION_COLUMNS,
  storedPosition,
  toDelivery,
  toDueQueue,
  toHealth,
  toSubscription,
  type DeliveryRow,
  type DueQueueRow,
  type HealthRow,
  type SubscriptionRow,
} from './postgresOutboxRows.js';

const ACTIVE = 'unsubscribed_at IS NULL AND stopped_at IS NULL';

const REQUEUE = `state = 'pending', round_attempts = 0, next_attempt_at = $1, completed_at = NULL, failure_reason = NULL`;

/**
 * The due queues, through the partial index of due times in due order: the walk passes over
 * the queues being worked on and those of companies at their cap (both bounded by the
 * dispatcher's slots and each company's subscriptions), never over outbox rows.
 * $1 now, $2 queues left out, $3 companies left out, $4 limit.
 */
export const DUE_QUEUES_SQL = `SELECT ${HEALTH_COLUMNS}, subscription_id, company_id, target_url FROM webhook_fan_out_subscriptions
  WHERE due_at <= $1 AND subscription_id <> ALL($2::text[]) AND company_id <> ALL($3::text[])
  ORDER BY due_at LIMIT $4`;

/** The earliest due time after $1, from the same index. */
export const NEXT_DUE_SQL = 'SELECT min(due_at) AS at FROM webhook_fan_out_subscriptions WHERE due_at > $1';

/**
 * The webhook outbox in PostgreSQL, beside the log: a fan-out batch (rows,
 * subscription view, checkpoint) is one transaction, every other change one
 * statement or one short transaction, so several processes may share it (the
 * dispatcher's process, and API processes redelivering or enabling on request).
 *
 * A queue is a subscription's pending rows in (position, ordinal) order, served by
 * a partial index of pending rows. Each subscription keeps its queue's due time
 * (decision 0201), moved by the functions `webhook_queues_filled` and
 * `webhook_queue_settle` (see logMigrations.ts) under the subscription's row lock.
 * A transaction that locks both a subscription and its rows takes the
 * subscription first, so that two of them never wait on each other. Counts by
 * state are kept by statement triggers as rows of changes, folded when read.
 *
 * A fan-out batch commits as every write does (`synchronous_commit` on: with a
 * synchronous standby, an acknowledged batch survives a failover). It once committed
 * without waiting (its rows are derived from the log, and a crash forgets them with
 * their checkpoint), but a fan-out that goes on running past a failover keeps its
 * position in memory: a batch acknowledged and then lost would leave a gap in the
 * outbox that nothing fills. Beside the log (`besideLog`), a batch's transaction also
 * checks that the log holds the batch's last event at its position, and the checkpoint
 * keeps that event's id, which a start checks against the log.
 */
/**
 * A fan-out batch whose last event the log does not hold at its position: read from a primary
 * that failed over, it holds events the new primary never got. Nothing of it is stored; the
 * fan-out reads the log again.
 */
export class LogDoesNotHoldError extends Error {
  override readonly name = 'LogDoesNotHoldError';
  constructor(
    readonly position: string,
    readonly expected: string,
    readonly found: string | null,
  ) {
    super(`the log holds ${found === null ? 'no event' : `event ${found}`} at position ${position}, not the batch's event ${expected}: nothing stored, the log is read again`);
  }
}

export class PostgresWebhookOutbox implements WebhookOutbox {
  readonly kind = 'postgres' as const;

  private readonly besideLog: boolean;

  constructor(
    private readonly pool: pg.Pool,
    /** `besideLog`: the log (`log_events`) is in the same database (see the class). */
    options: { readonly besideLog?: boolean } = {},
  ) {
    this.besideLog = options.besideLog ?? false;
  }

  async loadFanOut(name: string): Promise<FanOutState> {
    const checkpoint = await query<{ position: string; event_id: string | null }>(
      this.pool,
      'SELECT position, event_id FROM webhook_fan_out_checkpoints WHERE name = $1',
      [name],
    );
    const position = checkpoint.rows[0]?.position ?? null;
    const eventId = checkpoint.rows[0]?.event_id ?? null;
    // Every stored position is above -1 (and so after the start of the log).
    const { rows } = await query<SubscriptionRow>(
      this.pool,
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_fan_out_subscriptions WHERE unsubscribed_at IS NULL OR unsubscribed_at > $1`,
      [position ?? '-1'],
    );
    return { position, ...(eventId !== null ? { eventId } : {}), subscriptions: rows.map(toSubscription) };
  }

  /**
   * The subscriptions the batch changed (in id order, the order every locker of
   * several takes them in), its rows (a subscription first, so that its first rows
   * make its queue due), an ended subscription's rows cancelled, and the checkpoint.
   */
  async commitFanOut(name: string, commit: FanOutCommit, now: Date): Promise<void> {
    await inTransaction(this.pool, async (client) => {
        if (this.besideLog && commit.eventId !== undefined) {
          const { rows } = await client.query<{ id: string }>('SELECT id FROM log_events WHERE position = $1', [storedPosition(commit.position)]);
          if (rows[0]?.id !== commit.eventId) throw new LogDoesNotHoldError(commit.position, commit.eventId, rows[0]?.id ?? null);
        }
        const subscriptions = [...commit.subscriptions].sort((a, b) => (a.subscriptionId < b.subscriptionId ? -1 : 1));
        for (const sub of subscriptions) {
          await client.query(
            `INSERT INTO webhook_fan_out_subscriptions (subscription_id, company_id, event, target_url, filters, subscribed_at, unsubscribed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (subscription_id) DO UPDATE SET
               unsubscribed_at = COALESCE(webhook_fan_out_subscriptions.unsubscribed_at, excluded.unsubscribed_at)`,
            [
              sub.subscriptionId,
              sub.companyId,
              sub.event,
              sub.targetUrl,
              sub.filters === null ? null : JSON.stringify(sub.filters),
              storedPosition(sub.subscribedAt),
              sub.unsubscribedAt === null ? null : storedPosition(sub.unsubscribedAt),
            ],
          );
        }
        await this.insertAll(client, commit.deliveries, now);
        for (const sub of subscriptions) {
          if (sub.unsubscribedAt === null) continue;
          await this.cancelPending(client, sub.subscriptionId, 'unsubscribed', now);
          await settle(client, sub.subscriptionId);
        }
        await client.query(
          `INSERT INTO webhook_fan_out_checkpoints (name, position, event_id) VALUES ($1, $2, $3)
           ON CONFLICT (name) DO UPDATE SET position = excluded.position, event_id = excluded.event_id`,
          [name, storedPosition(commit.position), commit.eventId ?? null],
        );
      });
  }

  async enqueue(deliveries: readonly NewDelivery[], now: Date): Promise<number> {
    if (deliveries.length === 0) return 0;
    return inTransaction(this.pool, (client) => this.insertAll(client, deliveries, now));
  }

  /**
   * Inserts the rows not stored yet, in one statement, then makes the queues that got
   * rows due if they were empty; answers how many rows were new.
   */
  private async insertAll(client: pg.PoolClient, deliveries: readonly NewDelivery[], now: Date): Promise<number> {
    if (deliveries.length === 0) return 0;
    const column = <T>(pick: (d: NewDelivery) => T): T[] => deliveries.map(pick);
    const { rows } = await client.query<{ subscription_id: string; inserted: string }>(
      `WITH inserted AS (
         INSERT INTO webhook_outbox (subscription_id, event_id, company_id, position, ordinal, event_type, occurred_at, envelope,
           state, next_attempt_at, created_at)
         SELECT d.subscription_id, d.event_id, d.company_id, d.position, d.ordinal, d.event_type, d.occurred_at, d.envelope,
           'pending', $9, $9
         FROM unnest($1::text[], $2::text[], $3::text[], $4::numeric[], $5::integer[], $6::text[], $7::timestamptz[], $8::text[])
           AS d(subscription_id, event_id, company_id, position, ordinal, event_type, occurred_at, envelope)
         ON CONFLICT (subscription_id, event_id) DO NOTHING
         RETURNING subscription_id)
       SELECT subscription_id, count(*) AS inserted FROM inserted GROUP BY subscription_id`,
      [
        column((d) => d.subscriptionId),
        column((d) => d.eventId),
        column((d) => d.companyId),
        column((d) => storedPosition(d.position)),
        column((d) => d.ordinal),
        column((d) => d.eventType),
        column((d) => d.occurredAt),
        column((d) => d.envelope),
        now,
      ],
    );
    if (rows.length === 0) return 0;
    await client.query('SELECT webhook_queues_filled($1::text[], $2)', [rows.map((row) => row.subscription_id), now]);
    return rows.reduce((sum, row) => sum + Number(row.inserted), 0);
  }

  private async cancelPending(client: pg.PoolClient, subscriptionId: string, reason: DeliveryFailureReason, at: Date): Promise<void> {
    await client.query(
      `UPDATE webhook_outbox SET state = 'failed', failure_reason = $2, completed_at = $3, next_attempt_at = NULL
       WHERE subscription_id = $1 AND state = 'pending'`,
      [subscriptionId, reason, at],
    );
  }

  async head(subscriptionId: string): Promise<Delivery | null> {
    return (await this.pendingRows(subscriptionId, 1))[0] ?? null;
  }

  async pendingRows(subscriptionId: string, limit: number): Promise<readonly Delivery[]> {
    const size = Math.max(0, Math.floor(limit));
    if (size === 0) return [];
    const { rows } = await query<DeliveryRow>(
      this.pool,
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_outbox
       WHERE subscription_id = $1 AND state = 'pending' ORDER BY position, ordinal LIMIT $2`,
      [subscriptionId, size],
    );
    return rows.map(toDelivery);
  }

  async get(subscriptionId: string, eventId: string): Promise<Delivery | null> {
    const { rows } = await query<DeliveryRow>(
      this.pool,
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_outbox WHERE subscription_id = $1 AND event_id = $2`,
      [subscriptionId, eventId],
    );
    return rows[0] ? toDelivery(rows[0]) : null;
  }

  async dueQueues(now: Date, limit: number, skip: DueQueuesSkip = {}): Promise<DueQueues> {
    const size = Math.max(0, Math.floor(limit));
    return withConnection(this.pool, async (client) => {
      const due =
        size === 0
          ? []
          : (await client.query<DueQueueRow>(DUE_QUEUES_SQL, [now, [...(skip.queues ?? [])], [...(skip.companies ?? [])], size])).rows.map(toDueQueue);
      const next = await client.query<{ at: Date | null }>(NEXT_DUE_SQL, [now]);
      return { due, nextDueAt: next.rows[0]?.at ?? null };
    });
  }

  async settleQueue(subscriptionId: string): Promise<void> {
    await query(this.pool, 'SELECT webhook_queue_settle($1)', [subscriptionId]);
  }

  async setHealth(subscriptionId: string, health: Omit<QueueHealth, 'version'>, expectedVersion: number): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const changed = await client.query(
        `UPDATE webhook_fan_out_subscriptions SET delivery_status = $2, logged_status = $3, failing_since = $4, pauses = $5,
           hold_until = $6, health_version = health_version + 1
         WHERE subscription_id = $1 AND health_version = $7`,
        [subscriptionId, health.status, health.loggedStatus, health.failingSince, health.pauses, health.holdUntil, expectedVersion],
      );
      if (changed.rowCount !== 1) return false;
      await settle(client, subscriptionId);
      return true;
    });
  }

  async health(subscriptionId: string): Promise<QueueHealth | null> {
    const { rows } = await query<HealthRow>(this.pool, `SELECT ${HEALTH_COLUMNS} FROM webhook_fan_out_subscriptions WHERE subscription_id = $1`, [
      subscriptionId,
    ]);
    return rows[0] ? toHealth(rows[0]) : null;
  }

  async enableDelivery(subscriptionId: string): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const changed = await client.query(
        `UPDATE webhook_fan_out_subscriptions SET delivery_status = 'active', logged_status = 'active', failing_since = NULL, pauses = 0,
           hold_until = NULL, health_version = health_version + 1
         WHERE subscription_id = $1 AND ${ACTIVE}`,
        [subscriptionId],
      );
      if (changed.rowCount !== 1) return false;
      await settle(client, subscriptionId);
      return true;
    });
  }

  async recordAttempt(subscriptionId: string, eventId: string, attempt: DeliveryAttempt, outcome: AttemptOutcome, sentEnvelope?: string): Promise<boolean> {
    // One statement: the pending check, the outcome and the attempt appended to the list (the oldest
    // dropped beyond the kept number), so recording neither reads the row nor rewrites its attempts here.
    const recorded = await query(
      this.pool,
      `UPDATE webhook_outbox SET
         state = $3,
         attempts = (CASE WHEN jsonb_array_length(attempts) >= $4 THEN attempts - 0 ELSE attempts END)
           || jsonb_build_array(jsonb_build_object('at', $5::text, 'statusCode', $6::integer, 'error', $7::text, 'latencyMs', $8::integer)
           || (CASE WHEN $14::text IS NULL OR envelope = $14::text THEN $12::jsonb ELSE $13::jsonb END)),
         round_attempts = round_attempts + 1,
         next_attempt_at = $9,
         completed_at = $10,
         failure_reason = $11
       WHERE subscription_id = $1 AND event_id = $2
         AND (state = 'pending'
           -- The 410 that ended the subscription: its own unsubscription may have cancelled the row first.
           OR ($11 = 'gone' AND state = 'failed' AND failure_reason = 'unsubscribed'))`,
      [
        subscriptionId,
        eventId,
        outcome.state,
        MAX_KEPT_ATTEMPTS,
        attempt.at,
        attempt.statusCode,
        attempt.error,
        Math.trunc(attempt.latencyMs),
        outcome.state === 'pending' ? outcome.nextAttemptAt : null,
        outcome.state === 'pending' ? null : attempt.at,
        outcome.state === 'failed' ? outcome.reason : null,
        attemptDetailJson(attempt),
        attemptDetailJson(erasedAttempt(attempt)),
        sentEnvelope ?? null,
      ],
    );
    return recorded.rowCount === 1;
  }

  async stopSubscription(subscriptionId: string, at: Date): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query('UPDATE webhook_fan_out_subscriptions SET stopped_at = $2 WHERE subscription_id = $1 AND stopped_at IS NULL', [
        subscriptionId,
        at,
      ]);
      await this.cancelPending(client, subscriptionId, 'gone', at);
      await settle(client, subscriptionId);
    });
  }

  async listDeliveries(subscriptionId: string, { page, limit }: { readonly page: number; readonly limit: number }): Promise<DeliveryPage> {
    const size = Math.max(0, Math.floor(limit));
    const offset = Math.max(0, (Math.floor(page) - 1) * size);
    const items =
      size === 0
        ? []
        : (
            await query<DeliveryRow>(
              this.pool,
              `SELECT ${DELIVERY_COLUMNS} FROM webhook_outbox WHERE subscription_id = $1
               ORDER BY position DESC, ordinal DESC LIMIT $2 OFFSET $3`,
              [subscriptionId, size, offset],
            )
          ).rows.map(toDelivery);
    const { rows } = await query<{ total: string }>(this.pool, 'SELECT count(*) AS total FROM webhook_outbox WHERE subscription_id = $1', [
      subscriptionId,
    ]);
    return { items, total: Number(rows[0]!.total) };
  }

  async depthByState(): Promise<Record<DeliveryState, number>> {
    // Folds the rows of changes into one per state (one statement: atomic), then adds up what is there.
    await query(
      this.pool,
      `WITH moved AS (DELETE FROM webhook_outbox_count_changes RETURNING state, delta)
       INSERT INTO webhook_outbox_count_changes (state, delta) SELECT state, sum(delta) FROM moved GROUP BY state`,
    );
    const { rows } = await query<{ state: DeliveryState; total: string }>(
      this.pool,
      'SELECT state, sum(delta) AS total FROM webhook_outbox_count_changes GROUP BY state',
    );
    const depth: Record<DeliveryState, number> = { pending: 0, delivered: 0, failed: 0 };
    for (const row of rows) depth[row.state] = Number(row.total);
    return depth;
  }

  async pruneCompleted(before: Date, limit: number): Promise<number> {
    const size = Math.max(0, Math.floor(limit));
    if (size === 0) return 0;
    // Through the partial index of final rows by completion time; the triggers keep the counts. The state
    // is checked again on the row deleted: a redelivery may have put it back in the queue since.
    const pruned = await query(
      this.pool,
      `DELETE FROM webhook_outbox WHERE state <> 'pending' AND completed_at < $1 AND (subscription_id, event_id) IN (
         SELECT subscription_id, event_id FROM webhook_outbox
         WHERE state <> 'pending' AND completed_at < $1 ORDER BY completed_at LIMIT $2)`,
      [before, size],
    );
    return pruned.rowCount ?? 0;
  }

  async eraseMentions(companyId: string, id: string, rewrite: (envelope: string) => string): Promise<number> {
    // Through the company's subscriptions (the primary key's prefix); values bound, never inlined in SQL text.
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ subscription_id: string; event_id: string; envelope: string; attempts: DeliveryAttempt[] }>(
        `SELECT subscription_id, event_id, envelope, attempts FROM webhook_outbox WHERE subscription_id IN (
           SELECT subscription_id FROM webhook_fan_out_subscriptions WHERE company_id = $1) AND strpos(envelope, $2) > 0
         FOR UPDATE`,
        [companyId, id],
      );
      for (const row of rows) {
        await client.query('UPDATE webhook_outbox SET envelope = $1, attempts = $4::jsonb WHERE subscription_id = $2 AND event_id = $3', [
          rewrite(row.envelope),
          row.subscription_id,
          row.event_id,
          JSON.stringify(row.attempts.map(erasedAttempt)),
        ]);
      }
      return rows.length;
    });
  }

  async forgetCompany(companyId: string): Promise<number> {
    // Through the company's subscriptions (the primary key's prefix); the triggers keep the counts.
    const deleted = await query(
      this.pool,
      `DELETE FROM webhook_outbox WHERE subscription_id IN (SELECT subscription_id FROM webhook_fan_out_subscriptions WHERE company_id = $1)`,
      [companyId],
    );
    return deleted.rowCount ?? 0;
  }

  async redeliver(subscriptionId: string, eventId: string, now: Date): Promise<RedeliverResult> {
    return inTransaction(this.pool, async (client) => {
      const active = await this.lockIfActive(client, subscriptionId);
      const row = await client.query<{ state: DeliveryState }>(
        'SELECT state FROM webhook_outbox WHERE subscription_id = $1 AND event_id = $2 FOR UPDATE',
        [subscriptionId, eventId],
      );
      const state = row.rows[0]?.state;
      if (state === undefined) return 'not_found';
      if (!active) return 'inactive';
      if (state === 'pending') return 'pending';
      await client.query(`UPDATE webhook_outbox SET ${REQUEUE} WHERE subscription_id = $2 AND event_id = $3`, [now, subscriptionId, eventId]);
      await settle(client, subscriptionId);
      return 'requeued';
    });
  }

  async redeliverFailedSince(subscriptionId: string, since: Date, now: Date): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      if (!(await this.lockIfActive(client, subscriptionId))) return 0;
      const requeued = await client.query(
        `UPDATE webhook_outbox SET ${REQUEUE} WHERE subscription_id = $2 AND state = 'failed' AND occurred_at >= $3`,
        [now, subscriptionId, since],
      );
      if ((requeued.rowCount ?? 0) > 0) await settle(client, subscriptionId);
      return requeued.rowCount ?? 0;
    });
  }

  /** Locks the subscription (before any of its rows) and answers whether it is active. */
  private async lockIfActive(client: pg.PoolClient, subscriptionId: string): Promise<boolean> {
    const { rows } = await client.query<{ active: boolean }>(
      `SELECT ${ACTIVE} AS active FROM webhook_fan_out_subscriptions WHERE subscription_id = $1 FOR UPDATE`,
      [subscriptionId],
    );
    return rows[0]?.active ?? false;
  }

  async close(): Promise<void> {
    // The pool is shared; the event store ends it.
  }
}

/** Sets the queue's due time from its head and hold, in the caller's transaction (see webhook_queue_settle). */
const settle = async (client: pg.PoolClient, subscriptionId: string): Promise<void> => {
  await client.query('SELECT webhook_queue_settle($1)', [subscriptionId]);
};
