import type { Statement } from 'better-sqlite3';
import type { DeliveryFailureReason, DeliveryState, QueueStatus } from '../../application/ports/WebhookOutbox.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';

/** A row of `webhook_outbox`, as the statements below read it. */
export interface DeliveryRow {
  /** The row's own key (`webhook_attempt_details.outbox_id`). */
  id: number;
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

/** The health columns of `webhook_fan_out_subscriptions` (`QueueHealth`). */
export interface HealthRow {
  delivery_status: QueueStatus;
  logged_status: QueueStatus;
  failing_since: string | null;
  pauses: number;
  hold_until: string | null;
  health_version: number;
}

/** A row of `webhook_fan_out_subscriptions`. */
export interface SubscriptionRow extends HealthRow {
  subscription_id: string;
  company_id: string;
  event: string;
  target_url: string;
  filters: string | null;
  subscribed_at: string;
  unsubscribed_at: string | null;
  stopped_at: string | null;
  due_at: string | null;
}

/** A due queue, as `due` reads it: the subscription, not its rows. */
export interface DueQueueRow extends HealthRow {
  subscription_id: string;
  company_id: string;
  target_url: string;
}

export interface SetHealth {
  subscriptionId: string;
  status: QueueStatus;
  loggedStatus: QueueStatus;
  failingSince: string | null;
  pauses: number;
  holdUntil: string | null;
  expectedVersion: number;
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

const DELIVERY_COLUMNS = `o.id, o.subscription_id, o.event_id, o.company_id, o.position, o.ordinal, o.event_type,
  o.occurred_at, e.envelope, o.state, o.attempts, o.round_attempts, o.next_attempt_at, o.completed_at,
  o.failure_reason, o.created_at`;

/** The outbox rows with their bodies, kept beside them in `webhook_envelopes` (see the log file's migrations). */
const DELIVERIES = 'webhook_outbox o JOIN webhook_envelopes e ON e.id = o.id';

const HEALTH_COLUMNS = 'delivery_status, logged_status, failing_since, pauses, hold_until, health_version';

/** Every statement of the embedded outbox, prepared once on its connection, with named parameters. */
export const prepareOutboxStatements = (db: SqliteDatabase) => ({
  insert: db.prepare(
    `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, queue_key, position, ordinal, event_type,
       occurred_at, state, next_attempt_at, created_at)
     VALUES (@subscriptionId, @eventId, @companyId, @queueKey, @position, @ordinal, @eventType,
       @occurredAt, 'pending', @now, @now)
     ON CONFLICT (event_id, subscription_id) DO NOTHING`,
  ) as Statement<[Omit<InsertDelivery, 'envelope'>]>,
  // The body of the row `insert` has just added (its id, the largest: appended at the end of the table).
  insertEnvelope: db.prepare('INSERT INTO webhook_envelopes (id, envelope) VALUES (@id, @envelope)') as Statement<
    [{ id: number | bigint; envelope: string }]
  >,
  // The rows an insert added, counted once for all of them (no trigger counts inserts; see the migrations).
  countInserted: db.prepare("UPDATE webhook_outbox_counts SET total = total + @inserted WHERE state = 'pending'") as Statement<
    [{ inserted: number }]
  >,
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
    `SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERIES}
     WHERE o.subscription_id = @subscriptionId AND o.state = 'pending' ORDER BY o.queue_key LIMIT 1`,
  ) as Statement<[{ subscriptionId: string }], DeliveryRow>,
  pending: db.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERIES}
     WHERE o.subscription_id = @subscriptionId AND o.state = 'pending' ORDER BY o.queue_key LIMIT @limit`,
  ) as Statement<[{ subscriptionId: string; limit: number }], DeliveryRow>,
  get: db.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERIES} WHERE o.subscription_id = @subscriptionId AND o.event_id = @eventId`,
  ) as Statement<[{ subscriptionId: string; eventId: string }], DeliveryRow>,
  // The due queues, through the partial index of due times: the walk passes over the
  // queues being worked on and those of companies at their cap (both bounded by the
  // dispatcher's slots and each company's subscriptions), never over outbox rows.
  due: db.prepare(
    `SELECT ${HEALTH_COLUMNS}, subscription_id, company_id, target_url FROM webhook_fan_out_subscriptions
     WHERE due_at <= @now
       AND subscription_id NOT IN (SELECT value FROM json_each(@queues))
       AND company_id NOT IN (SELECT value FROM json_each(@companies))
     ORDER BY due_at LIMIT @limit`,
  ) as Statement<[{ now: string; queues: string; companies: string; limit: number }], DueQueueRow>,
  nextDue: db.prepare('SELECT MIN(due_at) AS at FROM webhook_fan_out_subscriptions WHERE due_at > @now') as Statement<
    [{ now: string }],
    { at: string | null }
  >,
  // New rows in an empty queue make it due (rows are added behind the head, so a queue with
  // a head keeps its due time); a held one stays held. Nothing for a disabled or ended one.
  fillDue: db.prepare(
    `UPDATE webhook_fan_out_subscriptions SET due_at = MAX(@now, COALESCE(hold_until, ''))
     WHERE subscription_id = @subscriptionId AND due_at IS NULL AND delivery_status <> 'disabled'
       AND unsubscribed_at IS NULL AND stopped_at IS NULL`,
  ) as Statement<[{ subscriptionId: string; now: string }]>,
  // The queue's due time from its head (one probe of the partial index of pending rows) and its hold.
  settle: db.prepare(
    `UPDATE webhook_fan_out_subscriptions AS s SET due_at = CASE
       WHEN s.unsubscribed_at IS NOT NULL OR s.stopped_at IS NOT NULL OR s.delivery_status = 'disabled' THEN NULL
       ELSE (SELECT MAX(o.next_attempt_at, COALESCE(s.hold_until, '')) FROM webhook_outbox o
             WHERE o.subscription_id = s.subscription_id AND o.state = 'pending' ORDER BY o.queue_key LIMIT 1)
     END
     WHERE s.subscription_id = @subscriptionId`,
  ) as Statement<[{ subscriptionId: string }]>,
  health: db.prepare(`SELECT ${HEALTH_COLUMNS} FROM webhook_fan_out_subscriptions WHERE subscription_id = @subscriptionId`) as Statement<
    [{ subscriptionId: string }],
    HealthRow
  >,
  setHealth: db.prepare(
    `UPDATE webhook_fan_out_subscriptions SET delivery_status = @status, logged_status = @loggedStatus,
       failing_since = @failingSince, pauses = @pauses, hold_until = @holdUntil, health_version = health_version + 1
     WHERE subscription_id = @subscriptionId AND health_version = @expectedVersion`,
  ) as Statement<[SetHealth]>,
  enable: db.prepare(
    `UPDATE webhook_fan_out_subscriptions SET delivery_status = 'active', logged_status = 'active', failing_since = NULL,
       pauses = 0, hold_until = NULL, health_version = health_version + 1
     WHERE subscription_id = @subscriptionId AND unsubscribed_at IS NULL AND stopped_at IS NULL`,
  ) as Statement<[{ subscriptionId: string }]>,
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
  // The attempt's request and response (what `record` appended the attempt for), as sent: or emptied
  // (`erasedDetail`) when the row's envelope is not the body sent any more (an erasure rewrote it meanwhile).
  recordDetail: db.prepare(
    `INSERT INTO webhook_attempt_details (outbox_id, at, detail)
     SELECT o.id, @at, CASE WHEN @sentEnvelope IS NULL OR e.envelope = @sentEnvelope THEN @detail ELSE @erasedDetail END
     FROM ${DELIVERIES} WHERE o.subscription_id = @subscriptionId AND o.event_id = @eventId`,
  ) as Statement<[{ at: string; detail: string; erasedDetail: string; sentEnvelope: string | null; subscriptionId: string; eventId: string }]>,
  stop: db.prepare(
    'UPDATE webhook_fan_out_subscriptions SET stopped_at = @at WHERE subscription_id = @subscriptionId AND stopped_at IS NULL',
  ) as Statement<[{ at: string; subscriptionId: string }]>,
  list: db.prepare(
    `SELECT ${DELIVERY_COLUMNS} FROM ${DELIVERIES} WHERE o.subscription_id = @subscriptionId
     ORDER BY o.queue_key DESC LIMIT @limit OFFSET @offset`,
  ) as Statement<[{ subscriptionId: string; limit: number; offset: number }], DeliveryRow>,
  count: db.prepare('SELECT COUNT(*) AS total FROM webhook_outbox WHERE subscription_id = @subscriptionId') as Statement<
    [{ subscriptionId: string }],
    { total: number }
  >,
  // Kept by the writes (an insert's count, triggers for a state changed or a row pruned), so a scrape reads three rows, not the table.
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
