import type { Statement } from 'better-sqlite3';
import type { DeliveryFailureReason, DeliveryState } from '../../application/ports/WebhookOutbox.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';

/** A row of `webhook_outbox`, as the statements below read it. */
export interface DeliveryRow {
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

/** A row of `webhook_fan_out_subscriptions`. */
export interface SubscriptionRow {
  subscription_id: string;
  company_id: string;
  event: string;
  target_url: string;
  filters: string | null;
  subscribed_at: string;
  unsubscribed_at: string | null;
  stopped_at: string | null;
}

/** A queue's head, as `heads` reads it: no row body, only when it is due. */
export interface QueueHeadRow {
  subscription_id: string;
  company_id: string;
  target_url: string;
  next_attempt_at: string | null;
}

export interface InsertDelivery {
  subscriptionId: string;
  eventId: string;
  companyId: string;
  queueKey: string;
  position: string;
  ordinal: number;
  eventType: string;
  occurredAt: string;
  envelope: string;
  now: string;
}

export interface UpsertSubscription {
  subscriptionId: string;
  companyId: string;
  event: string;
  targetUrl: string;
  filters: string | null;
  subscribedAt: string;
  unsubscribedAt: string | null;
}

export interface RecordAttempt {
  subscriptionId: string;
  eventId: string;
  state: DeliveryState;
  maxKept: number;
  at: string;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  nextAttemptAt: string | null;
  completedAt: string | null;
  failureReason: string | null;
}

const DELIVERY_COLUMNS = `o.subscription_id, o.event_id, o.company_id, o.position, o.ordinal, o.event_type,
  o.occurred_at, o.envelope, o.state, o.attempts, o.round_attempts, o.next_attempt_at, o.completed_at,
  o.failure_reason, o.created_at`;

/** Every statement of the embedded outbox, prepared once on its connection, with named parameters. */
export const prepareOutboxStatements = (db: SqliteDatabase) => ({
  insert: db.prepare(
    `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, queue_key, position, ordinal, event_type,
       occurred_at, envelope, state, next_attempt_at, created_at)
     VALUES (@subscriptionId, @eventId, @companyId, @queueKey, @position, @ordinal, @eventType,
       @occurredAt, @envelope, 'pending', @now, @now)
     ON CONFLICT (event_id, subscription_id) DO NOTHING`,
  ) as Statement<[InsertDelivery]>,
  upsertSubscription: db.prepare(
    `INSERT INTO webhook_fan_out_subscriptions
       (subscription_id, company_id, event, target_url, filters, subscribed_at, unsubscribed_at)
     VALUES (@subscriptionId, @companyId, @event, @targetUrl, @filters, @subscribedAt, @unsubscribedAt)
     ON CONFLICT (subscription_id) DO UPDATE SET unsubscribed_at = COALESCE(unsubscribed_at, excluded.unsubscribed_at)`,
  ) as Statement<[UpsertSubscription]>,
  cancelPending: db.prepare(
    `UPDATE webhook_outbox SET state = 'failed', failure_reason = @reason, completed_at = @at, next_attempt_at = NULL
     WHERE subscription_id = @subscriptionId AND state = 'pending'`,
  ) as Statement<[{ reason: DeliveryFailureReason; at: string; subscriptionId: string }]>,
  saveCheckpoint: db.prepare(
    `INSERT INTO checkpoints (name, position) VALUES (@name, @position)
     ON CONFLICT (name) DO UPDATE SET position = excluded.position`,
  ) as Statement<[{ name: string; position: string }]>,
  loadCheckpoint: db.prepare('SELECT position FROM checkpoints WHERE name = @name') as Statement<[{ name: string }], { position: string }>,
  loadSubscriptions: db.prepare(
    'SELECT * FROM webhook_fan_out_subscriptions WHERE unsubscribed_at IS NULL OR unsubscribed_at > @after',
  ) as Statement<[{ after: string }], SubscriptionRow>,
  head: db.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_outbox o
     WHERE o.subscription_id = @subscriptionId AND o.state = 'pending' ORDER BY o.queue_key LIMIT 1`,
  ) as Statement<[{ subscriptionId: string }], DeliveryRow>,
  pending: db.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_outbox o
     WHERE o.subscription_id = @subscriptionId AND o.state = 'pending' ORDER BY o.queue_key LIMIT @limit`,
  ) as Statement<[{ subscriptionId: string; limit: number }], DeliveryRow>,
  get: db.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_outbox o WHERE o.subscription_id = @subscriptionId AND o.event_id = @eventId`,
  ) as Statement<[{ subscriptionId: string; eventId: string }], DeliveryRow>,
  // One head per active subscription, through the partial index of pending rows: only
  // when it is due, not the row itself (the dispatcher reads a turn's rows with `pending`).
  heads: db.prepare(
    `SELECT s.subscription_id, s.company_id, s.target_url, o.next_attempt_at FROM webhook_fan_out_subscriptions s
     JOIN webhook_outbox o ON o.id = (
       SELECT p.id FROM webhook_outbox p
       WHERE p.subscription_id = s.subscription_id AND p.state = 'pending'
       ORDER BY p.queue_key LIMIT 1)
     WHERE s.unsubscribed_at IS NULL AND s.stopped_at IS NULL`,
  ) as Statement<[], QueueHeadRow>,
  // One statement per attempt: the pending check, the outcome and the attempt appended
  // to the JSON list in SQL (the oldest dropped beyond the kept number), so recording
  // neither reads the row nor parses and rewrites its attempts in JavaScript.
  record: db.prepare(
    `UPDATE webhook_outbox SET
       state = @state,
       attempts = json_insert(
         CASE WHEN json_array_length(attempts) >= @maxKept THEN json_remove(attempts, '$[0]') ELSE attempts END,
         '$[#]',
         json_object('at', @at, 'statusCode', CAST(@statusCode AS INTEGER), 'error', @error, 'latencyMs', CAST(@latencyMs AS INTEGER))),
       round_attempts = round_attempts + 1,
       next_attempt_at = @nextAttemptAt,
       completed_at = @completedAt,
       failure_reason = @failureReason
     WHERE subscription_id = @subscriptionId AND event_id = @eventId
       AND (state = 'pending'
         -- The 410 that ended the subscription: its own unsubscription may have cancelled the row first.
         OR (@failureReason = 'gone' AND state = 'failed' AND failure_reason = 'unsubscribed'))`,
  ) as Statement<[RecordAttempt]>,
  stop: db.prepare(
    'UPDATE webhook_fan_out_subscriptions SET stopped_at = @at WHERE subscription_id = @subscriptionId AND stopped_at IS NULL',
  ) as Statement<[{ at: string; subscriptionId: string }]>,
  list: db.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_outbox o WHERE o.subscription_id = @subscriptionId
     ORDER BY o.queue_key DESC LIMIT @limit OFFSET @offset`,
  ) as Statement<[{ subscriptionId: string; limit: number; offset: number }], DeliveryRow>,
  count: db.prepare('SELECT COUNT(*) AS total FROM webhook_outbox WHERE subscription_id = @subscriptionId') as Statement<
    [{ subscriptionId: string }],
    { total: number }
  >,
  // Kept by triggers (see the migrations), so a scrape reads three rows, not the table.
  depth: db.prepare('SELECT state, total FROM webhook_outbox_counts') as Statement<[], { state: DeliveryState; total: number }>,
  // Through the partial index of final rows by completion time; the triggers keep the counts.
  prune: db.prepare(
    `DELETE FROM webhook_outbox WHERE id IN (
       SELECT id FROM webhook_outbox WHERE state <> 'pending' AND completed_at < @before ORDER BY completed_at LIMIT @limit)`,
  ) as Statement<[{ before: string; limit: number }]>,
  subscription: db.prepare('SELECT * FROM webhook_fan_out_subscriptions WHERE subscription_id = @subscriptionId') as Statement<
    [{ subscriptionId: string }],
    SubscriptionRow
  >,
  requeue: db.prepare(
    `UPDATE webhook_outbox SET state = 'pending', round_attempts = 0, next_attempt_at = @now, completed_at = NULL,
       failure_reason = NULL
     WHERE subscription_id = @subscriptionId AND event_id = @eventId AND state <> 'pending'`,
  ) as Statement<[{ now: string; subscriptionId: string; eventId: string }]>,
  requeueFailedSince: db.prepare(
    `UPDATE webhook_outbox SET state = 'pending', round_attempts = 0, next_attempt_at = @now, completed_at = NULL,
       failure_reason = NULL
     WHERE subscription_id = @subscriptionId AND state = 'failed' AND occurred_at >= @since`,
  ) as Statement<[{ now: string; subscriptionId: string; since: string }]>,
});

export type OutboxStatements = ReturnType<typeof prepareOutboxStatements>;
