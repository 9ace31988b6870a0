import type {
  Delivery,
  DeliveryAttempt,
  DeliveryFailureReason,
  DeliveryQueue,
  DeliveryState,
  FannedOutSubscription,
  QueueHealth,
  QueueStatus,
  WebhookFilters,
} from '../../application/ports/WebhookOutbox.js';
import { isPosition, type Position } from '../../shared/Position.js';

/** A row of `webhook_outbox`, as `DELIVERY_COLUMNS` reads it (pg gives timestamptz as Date, jsonb parsed). */
export interface DeliveryRow {
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

/** The health columns of `webhook_fan_out_subscriptions` (`QueueHealth`). */
export interface HealthRow {
  delivery_status: QueueStatus;
  logged_status: QueueStatus;
  failing_since: Date | null;
  pauses: number;
  hold_until: Date | null;
  health_version: number;
}

/** A row of `webhook_fan_out_subscriptions`, as `SUBSCRIPTION_COLUMNS` reads it. */
export interface SubscriptionRow {
  subscription_id: string;
  company_id: string;
  event: string;
  target_url: string;
  filters: WebhookFilters;
  subscribed_at: string;
  unsubscribed_at: string | null;
}

/** A due queue, as `dueQueues` reads it: the subscription, not its rows. */
export interface DueQueueRow extends HealthRow {
  subscription_id: string;
  company_id: string;
  target_url: string;
}

export const DELIVERY_COLUMNS = `subscription_id, event_id, company_id, position, ordinal, event_type, occurred_at, envelope, state,
  attempts, round_attempts, next_attempt_at, completed_at, failure_reason, created_at`;

export const SUBSCRIPTION_COLUMNS = 'subscription_id, company_id, event, target_url, filters, subscribed_at, unsubscribed_at';

export const HEALTH_COLUMNS = 'delivery_status, logged_status, failing_since, pauses, hold_until, health_version';

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());

export const toDelivery = (row: DeliveryRow): Delivery => ({
  subscriptionId: row.subscription_id,
  companyId: row.company_id,
  eventId: row.event_id,
  eventType: row.event_type,
  position: row.position,
  ordinal: row.ordinal,
  occurredAt: row.occurred_at.toISOString(),
  envelope: row.envelope,
  state: row.state,
  attempts: row.attempts.map(({ at, statusCode, error, latencyMs, errorKind, request, response }) => ({
    at,
    statusCode,
    error,
    latencyMs,
    ...(errorKind !== undefined ? { errorKind } : {}),
    ...(request !== undefined ? { request } : {}),
    ...(response !== undefined ? { response } : {}),
  })),
  roundAttempts: row.round_attempts,
  nextAttemptAt: iso(row.next_attempt_at),
  completedAt: iso(row.completed_at),
  failureReason: row.failure_reason,
  createdAt: row.created_at.toISOString(),
});

export const toSubscription = (row: SubscriptionRow): FannedOutSubscription => ({
  subscriptionId: row.subscription_id,
  companyId: row.company_id,
  event: row.event,
  targetUrl: row.target_url,
  filters: row.filters,
  subscribedAt: row.subscribed_at,
  unsubscribedAt: row.unsubscribed_at,
});

export const toHealth = (row: HealthRow): QueueHealth => ({
  status: row.delivery_status,
  loggedStatus: row.logged_status,
  failingSince: iso(row.failing_since),
  pauses: row.pauses,
  holdUntil: iso(row.hold_until),
  version: row.health_version,
});

export const toDueQueue = (row: DueQueueRow): DeliveryQueue => ({
  subscriptionId: row.subscription_id,
  companyId: row.company_id,
  targetUrl: row.target_url,
  health: toHealth(row),
});

/** A position the numeric(40) columns take: refused here rather than by the server. */
export const storedPosition = (position: Position): string => {
  if (!isPosition(position) || position.length > 40) throw new Error(`Not a position: ${JSON.stringify(position)}`);
  return position;
};
