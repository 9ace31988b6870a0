import type pg from 'pg';
import {
  MAX_KEPT_ATTEMPTS,
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
import { isPosition, type Position } from '../../shared/Position.js';
import { inTransaction, query, withConnection } from './postgresPool.js';

interface DeliveryRow {
  subscription_id: string;
  event_id: string;
  company_id: string;
  position: string;
  ordinal: number;
  event_type: string;
  occurred_at: Date;
  envelope: string;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  round_attempts: number;
  next_attempt_at: Date | null;
  completed_at: Date | null;
  failure_reason: DeliveryFailureReason | null;
  created_at: Date;
}

interface SubscriptionRow {
  subscription_id: string;
  company_id: string;
  event: string;
  target_url: string;
  filters: WebhookFilters;
  subscribed_at: string;
  unsubscribed_at: string | null;
  stopped_at: Date | null;
}

const DELIVERY_COLUMNS = `subscription_id, event_id, company_id, position, ordinal, event_type, occurred_at, envelope, state,
  attempts, round_attempts, next_attempt_at, completed_at, failure_reason, created_at`;

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());

const toDelivery = (row: DeliveryRow): Delivery => ({
  subscriptionId: row.subscription_id,
  companyId: row.company_id,
  eventId: row.event_id,
  eventType: row.event_type,
  position: row.position,
  ordinal: row.ordinal,
  occurredAt: row.occurred_at.toISOString(),
  envelope: row.envelope,
  state: row.state,
  attempts: row.attempts.map(({ at, statusCode, error, latencyMs }) => ({ at, statusCode, error, latencyMs })),
  roundAttempts: row.round_attempts,
  nextAttemptAt: iso(row.next_attempt_at),
  completedAt: iso(row.completed_at),
  failureReason: row.failure_reason,
  createdAt: row.created_at.toISOString(),
});

const toSubscription = (row: SubscriptionRow): FannedOutSubscription => ({
  subscriptionId: row.subscription_id,
  companyId: row.company_id,
  event: row.event,
  targetUrl: row.target_url,
  filters: row.filters,
  subscribedAt: row.subscribed_at,
  unsubscribedAt: row.unsubscribed_at,
});

/** A position the numeric(40) columns take: refused here rather than by the server. */
const storedPosition = (position: Position): string => {
  if (!isPosition(position) || position.length > 40) throw new Error(`Not a position: ${JSON.stringify(position)}`);
  return position;
};

const ACTIVE = 'unsubscribed_at IS NULL AND stopped_at IS NULL';

const REQUEUE = `state = 'pending', round_attempts = 0, next_attempt_at = $1, completed_at = NULL, failure_reason = NULL`;

/**
 * The webhook outbox in PostgreSQL, beside the log: a fan-out batch (rows,
 * subscription view, checkpoint) is one transaction, every other change one
 * statement or one short transaction, so several processes may share it (the
 * dispatcher's process, and API processes redelivering on request).
 *
 * A queue is a subscription's pending rows in (position, ordinal) order, served by
 * a partial index of pending rows. Counts by state are kept by statement triggers
 * as rows of changes (see logMigrations.ts), folded when read.
 *
 * A fan-out batch commits without waiting for its WAL to reach the disk
 * (`synchronous_commit = off`): everything in it is derived from events the log
 * holds durably, and a crash of the server that forgets it forgets its checkpoint
 * with it, so the fan-out reads those events again and stores the same rows. A
 * delivery attempt recorded after it commits normally, which makes the WAL before
 * it durable too.
 */
export class PostgresWebhookOutbox implements WebhookOutbox {
  readonly kind = 'postgres' as const;

  constructor(private readonly pool: pg.Pool) {}

  async loadFanOut(name: string): Promise<FanOutState> {
    const checkpoint = await query<{ position: string }>(this.pool, 'SELECT position FROM webhook_fan_out_checkpoints WHERE name = $1', [name]);
    const position = checkpoint.rows[0]?.position ?? null;
    // Every stored position is above -1 (and so after the start of the log).
    const { rows } = await query<SubscriptionRow>(
      this.pool,
      'SELECT * FROM webhook_fan_out_subscriptions WHERE unsubscribed_at IS NULL OR unsubscribed_at > $1',
      [position ?? '-1'],
    );
    return { position, subscriptions: rows.map(toSubscription) };
  }

  async commitFanOut(name: string, commit: FanOutCommit, now: Date): Promise<void> {
    await inTransaction(
      this.pool,
      async (client) => {
        await this.insertAll(client, commit.deliveries, now);
        for (const sub of commit.subscriptions) {
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
          if (sub.unsubscribedAt !== null) await this.cancelPending(client, sub.subscriptionId, 'unsubscribed', now);
        }
        await client.query(
          `INSERT INTO webhook_fan_out_checkpoints (name, position) VALUES ($1, $2)
           ON CONFLICT (name) DO UPDATE SET position = excluded.position`,
          [name, storedPosition(commit.position)],
        );
      },
      'BEGIN; SET LOCAL synchronous_commit TO off',
    );
  }

  async enqueue(deliveries: readonly NewDelivery[], now: Date): Promise<number> {
    return withConnection(this.pool, (client) => this.insertAll(client, deliveries, now));
  }

  /** Inserts the rows not stored yet, in one statement; answers how many were new. */
  private async insertAll(client: pg.PoolClient, deliveries: readonly NewDelivery[], now: Date): Promise<number> {
    if (deliveries.length === 0) return 0;
    const column = <T>(pick: (d: NewDelivery) => T): T[] => deliveries.map(pick);
    const inserted = await client.query(
      `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, position, ordinal, event_type, occurred_at, envelope,
         state, next_attempt_at, created_at)
       SELECT d.subscription_id, d.event_id, d.company_id, d.position, d.ordinal, d.event_type, d.occurred_at, d.envelope,
         'pending', $9, $9
       FROM unnest($1::text[], $2::text[], $3::text[], $4::numeric[], $5::integer[], $6::text[], $7::timestamptz[], $8::text[])
         AS d(subscription_id, event_id, company_id, position, ordinal, event_type, occurred_at, envelope)
       ON CONFLICT (subscription_id, event_id) DO NOTHING`,
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
    return inserted.rowCount ?? 0;
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

  async dueQueues(now: Date, limit: number, skip: ReadonlySet<string> = new Set()): Promise<DueQueues> {
    // One head per active subscription, through the partial index of pending rows: only when it is
    // due, not the row itself (the dispatcher reads a turn's rows with `pendingRows`).
    const { rows } = await query<{ subscription_id: string; company_id: string; target_url: string; next_attempt_at: Date | null }>(
      this.pool,
      `SELECT s.subscription_id, s.company_id, s.target_url, h.next_attempt_at
       FROM webhook_fan_out_subscriptions s
       CROSS JOIN LATERAL (
         SELECT o.next_attempt_at FROM webhook_outbox o
         WHERE o.subscription_id = s.subscription_id AND o.state = 'pending'
         ORDER BY o.position, o.ordinal LIMIT 1) h
       WHERE s.unsubscribed_at IS NULL AND s.stopped_at IS NULL
       ORDER BY h.next_attempt_at NULLS FIRST`,
    );
    const due: DeliveryQueue[] = [];
    let nextDueAt: Date | null = null;
    for (const row of rows) {
      if (skip.has(row.subscription_id)) continue;
      const at = row.next_attempt_at ?? now;
      if (at.getTime() <= now.getTime()) {
        if (due.length < limit) due.push({ subscriptionId: row.subscription_id, companyId: row.company_id, targetUrl: row.target_url });
      } else if (nextDueAt === null || at < nextDueAt) {
        nextDueAt = at;
      }
    }
    return { due, nextDueAt };
  }

  async recordAttempt(subscriptionId: string, eventId: string, attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<boolean> {
    // One statement: the pending check, the outcome and the attempt appended to the list (the oldest
    // dropped beyond the kept number), so recording neither reads the row nor rewrites its attempts here.
    const recorded = await query(
      this.pool,
      `UPDATE webhook_outbox SET
         state = $3,
         attempts = (CASE WHEN jsonb_array_length(attempts) >= $4 THEN attempts - 0 ELSE attempts END)
           || jsonb_build_array(jsonb_build_object('at', $5::text, 'statusCode', $6::integer, 'error', $7::text, 'latencyMs', $8::integer)),
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

  async redeliver(subscriptionId: string, eventId: string, now: Date): Promise<RedeliverResult> {
    return inTransaction(this.pool, async (client) => {
      const row = await client.query<{ state: DeliveryState }>(
        'SELECT state FROM webhook_outbox WHERE subscription_id = $1 AND event_id = $2 FOR UPDATE',
        [subscriptionId, eventId],
      );
      const state = row.rows[0]?.state;
      if (state === undefined) return 'not_found';
      if (!(await this.isActive(client, subscriptionId))) return 'inactive';
      if (state === 'pending') return 'pending';
      await client.query(`UPDATE webhook_outbox SET ${REQUEUE} WHERE subscription_id = $2 AND event_id = $3`, [now, subscriptionId, eventId]);
      return 'requeued';
    });
  }

  async redeliverFailedSince(subscriptionId: string, since: Date, now: Date): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      if (!(await this.isActive(client, subscriptionId))) return 0;
      const requeued = await client.query(
        `UPDATE webhook_outbox SET ${REQUEUE} WHERE subscription_id = $2 AND state = 'failed' AND occurred_at >= $3`,
        [now, subscriptionId, since],
      );
      return requeued.rowCount ?? 0;
    });
  }

  private async isActive(client: pg.PoolClient, subscriptionId: string): Promise<boolean> {
    const { rows } = await client.query(`SELECT 1 FROM webhook_fan_out_subscriptions WHERE subscription_id = $1 AND ${ACTIVE} FOR SHARE`, [subscriptionId]);
    return rows.length === 1;
  }

  async close(): Promise<void> {
    // The pool is shared; the event store ends it.
  }
}
