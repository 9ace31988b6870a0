import { isPosition, type Position } from '../../shared/Position.js';

/**
 * A subscription's filters, as the outbox keeps and the fan-out applies them: only
 * contact `tags` for now; `null`, every event of the type. (The webhooks feature
 * decodes them on input and in its events, in this shape.)
 */
export type WebhookFilters = { readonly tags?: readonly string[] } | null;

/**
 * The webhook outbox: one row per (subscription, derived webhook event), written
 * by the fan-out and worked off by the dispatcher, plus the fan-out's own
 * log-consistent view of the subscriptions and its checkpoint, kept in the same
 * store so that all three move together.
 *
 * Each subscription's rows form a queue ordered by the log: `position`, then
 * `ordinal` (the index of the webhook event among those one stored event
 * derives). The head of a queue is its oldest `pending` row; only the head is
 * ever attempted, so a receiver sees a subscription's events in log order.
 */

/** `pending`: to be attempted (again); `delivered`: a 200 was received; `failed`: final without a 200. */
export type DeliveryState = 'pending' | 'delivered' | 'failed';

/**
 * Why a row is `failed`: `retries_exhausted` after the last retry; `gone` when the
 * receiver answered 410 (this row, and the rows behind it); `unsubscribed` when
 * the subscription ended while the row was still pending.
 */
export type DeliveryFailureReason = 'retries_exhausted' | 'gone' | 'unsubscribed';

/**
 * Why an attempt got no response, in one word: `timeout` (no complete response in
 * time), `connection_refused`, `connection_reset` (closed before the response was
 * complete), `dns` (the host has no address), `tls` (the TLS handshake or the
 * certificate failed), `refused_address` (the target resolved to an address deliveries
 * may not reach), `invalid_target`, `no_secret` (the subscription cannot be signed for),
 * `other`.
 */
export type AttemptErrorKind =
  | 'timeout'
  | 'connection_refused'
  | 'connection_reset'
  | 'dns'
  | 'tls'
  | 'refused_address'
  | 'invalid_target'
  | 'no_secret'
  | 'other';

/** What an attempt sent: the URL and every header (the signature headers too). The body is the row's `envelope`. */
export interface AttemptRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * What the receiver answered, besides its status: its headers (`set-cookie` and
 * `authorization` redacted) and the first 64 KiB of its body. A person's erasure
 * empties both (`erased`) on the rows that mention the person.
 */
export interface AttemptResponse {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The body was longer than what is kept. */
  readonly bodyTruncated: boolean;
  /** Emptied by an erasure: the body and headers are not kept any more. */
  readonly erased?: true;
}

/** One HTTP attempt. */
export interface DeliveryAttempt {
  /** When the attempt started (ISO 8601 UTC). */
  readonly at: string;
  /** The receiver's status code, or null when no response arrived. */
  readonly statusCode: number | null;
  /** Why the attempt failed without a status (timeout, refused address, connection error), else null. */
  readonly error: string | null;
  readonly latencyMs: number;
  /** `error` in one word; absent when it has a status (and on attempts recorded before it was kept). */
  readonly errorKind?: AttemptErrorKind;
  /** What was sent; absent when nothing was (no secret to sign with), and on attempts recorded before it was kept. */
  readonly request?: AttemptRequest;
  /** What came back with the status; absent without a response, and on attempts recorded before it was kept. */
  readonly response?: AttemptResponse;
}

/** Response headers never kept in the delivery log: their values are replaced with this. */
export const REDACTED = '[redacted]';
const REDACTED_HEADERS: ReadonlySet<string> = new Set(['set-cookie', 'authorization']);

/** `headers` with the values of `set-cookie` and `authorization` redacted (names compared in lower case). */
export const redactHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, REDACTED_HEADERS.has(name.toLowerCase()) ? REDACTED : value]));

/** The parts of an attempt beyond the first four, as JSON text (`{}` when it has none), for adapters that append it in SQL. */
export const attemptDetailJson = (attempt: DeliveryAttempt): string =>
  JSON.stringify({
    ...(attempt.errorKind !== undefined ? { errorKind: attempt.errorKind } : {}),
    ...(attempt.request !== undefined ? { request: attempt.request } : {}),
    ...(attempt.response !== undefined ? { response: attempt.response } : {}),
  });

/** An attempt as kept after a person's erasure reached its row: the response's body and headers are gone. */
export const erasedAttempt = (attempt: DeliveryAttempt): DeliveryAttempt =>
  attempt.response === undefined ? attempt : { ...attempt, response: { headers: {}, body: '', bodyTruncated: false, erased: true } };

/** What the fan-out enqueues. */
export interface NewDelivery {
  readonly subscriptionId: string;
  readonly companyId: string;
  /** The derived webhook event's id (`metadata.eventId` and the `webhook-id` header). */
  readonly eventId: string;
  /** Webhook event type, e.g. `deal.won`. */
  readonly eventType: string;
  /** Log position of the stored event it derives from. */
  readonly position: Position;
  /** Index among the webhook events derived from that stored event (0-based). */
  readonly ordinal: number;
  /** When the change happened (ISO 8601 UTC, the envelope's `timestamp`). */
  readonly occurredAt: string;
  /** The JSON body, exactly as it is sent and signed. */
  readonly envelope: string;
}

export interface Delivery extends NewDelivery {
  readonly state: DeliveryState;
  /** Every attempt, oldest first (the most recent 100 are kept). */
  readonly attempts: readonly DeliveryAttempt[];
  /** Attempts since the row was (re)queued: decides between one more retry and `failed`. */
  readonly roundAttempts: number;
  /** When a pending row may be attempted (ISO 8601 UTC); null once final. */
  readonly nextAttemptAt: string | null;
  /** When the row became `delivered` or `failed`; null while pending. */
  readonly completedAt: string | null;
  readonly failureReason: DeliveryFailureReason | null;
  /** When the fan-out enqueued it. */
  readonly createdAt: string;
}

/** A subscription as the fan-out has folded it from the log. */
export interface FannedOutSubscription {
  readonly subscriptionId: string;
  readonly companyId: string;
  /** The webhook event type it receives. */
  readonly event: string;
  readonly targetUrl: string;
  readonly filters: WebhookFilters;
  /** Position of its WebhookSubscribed: it receives events after this position only. */
  readonly subscribedAt: Position;
  /** Position of its WebhookUnsubscribed: it receives events before this position only; null while active. */
  readonly unsubscribedAt: Position | null;
}

/** The fan-out's state at start-up. */
export interface FanOutState {
  readonly position: Position | null;
  /** The id of the event at `position`, where the outbox keeps it (PostgreSQL, beside the log). */
  readonly eventId?: string | null;
  /**
   * Subscriptions still active, and those unsubscribed after `position` (events
   * between the checkpoint and their unsubscription still go to them).
   */
  readonly subscriptions: readonly FannedOutSubscription[];
}

/** What one batch of the log produced; stored as one unit. */
export interface FanOutCommit {
  /** The last log position the batch covered: the new checkpoint. */
  readonly position: Position;
  /**
   * The id of the event at `position`, where known: kept with the checkpoint, and, where the
   * outbox shares the log's database, checked against the log in the batch's transaction (a
   * batch read from a primary that failed over may hold events the new primary never got).
   */
  readonly eventId?: string;
  /**
   * Subscriptions subscribed or unsubscribed in the batch, as they are after it.
   * An unsubscribed one has its pending rows marked `failed` (`unsubscribed`).
   */
  readonly subscriptions: readonly FannedOutSubscription[];
  /** Rows to enqueue; a (subscriptionId, eventId) already stored is left as it is. */
  readonly deliveries: readonly NewDelivery[];
}

/**
 * Whether the dispatcher delivers to a subscription: `active`; `paused` (its
 * receiver kept failing: the queue is held until `holdUntil`, then tried again);
 * `disabled` (never due until `enableDelivery`). Rows are queued in every case.
 */
export type QueueStatus = 'active' | 'paused' | 'disabled';

/**
 * The dispatcher's record of how a subscription's receiver is doing, kept beside
 * its queue and written only by the dispatcher (`setHealth`) and by
 * `enableDelivery`. `version` grows with every write, so that a decision made on
 * an older record (an attempt in flight while the company enabled the
 * subscription) is refused rather than written over the newer one.
 */
export interface QueueHealth {
  readonly status: QueueStatus;
  /**
   * The status the log records (the subscription's last WebhookPaused, WebhookDisabled or
   * WebhookEnabled): differs from `status` until the dispatcher has appended the event.
   */
  readonly loggedStatus: QueueStatus;
  /** The first failed attempt since the last delivery (ISO 8601 UTC), or null. */
  readonly failingSince: string | null;
  /** Times the queue was held since the receiver started failing (0 while active): how long the next hold is. */
  readonly pauses: number;
  /** The queue is not attempted before this time (ISO 8601 UTC), or null. */
  readonly holdUntil: string | null;
  readonly version: number;
}

/** The health of a subscription whose receiver never failed (and of one just enabled, at version 0). */
export const HEALTHY: QueueHealth = { status: 'active', loggedStatus: 'active', failingSince: null, pauses: 0, holdUntil: null, version: 0 };

/**
 * A subscription whose queue is due. Only what the dispatcher needs to start a
 * turn: it reads the rows themselves with `pendingRows`.
 */
export interface DeliveryQueue {
  readonly subscriptionId: string;
  readonly companyId: string;
  readonly targetUrl: string;
  readonly health: QueueHealth;
}

export interface DueQueues {
  /** Queues due now, the longest-waiting first (by the time each became due). */
  readonly due: readonly DeliveryQueue[];
  /** The earliest due time after `now` of any queue, or null. */
  readonly nextDueAt: Date | null;
}

/** Queues `dueQueues` leaves out: those being worked on, and every queue of the companies at their cap. */
export interface DueQueuesSkip {
  readonly queues?: ReadonlySet<string>;
  readonly companies?: ReadonlySet<string>;
}

/** What an attempt leads to. */
export type AttemptOutcome =
  | { readonly state: 'delivered' }
  | { readonly state: 'pending'; readonly nextAttemptAt: Date }
  | { readonly state: 'failed'; readonly reason: 'retries_exhausted' | 'gone' };

export interface DeliveryPage {
  readonly items: readonly Delivery[];
  readonly total: number;
}

export type RedeliverResult =
  /** Pending again, with its event id and body unchanged, at its place in the queue. */
  | 'requeued'
  /** Still pending: it will be attempted anyway. */
  | 'pending'
  | 'not_found'
  /** The subscription has ended (unsubscribed or gone): nothing is sent to it any more. */
  | 'inactive';

export interface WebhookOutbox {
  readonly kind: 'sqlite' | 'mongodb' | 'postgres';
  /** The fan-out's checkpoint (named `name`) and its view of the subscriptions. */
  loadFanOut(name: string): Promise<FanOutState>;
  /**
   * Stores one batch of the fan-out: subscription changes, rows (idempotently) and
   * the checkpoint. SQLite does it in one transaction; MongoDB writes the
   * checkpoint last, after idempotent, position-guarded writes, so a batch
   * interrupted half-way is simply done again.
   */
  commitFanOut(name: string, commit: FanOutCommit, now: Date): Promise<void>;
  /** Enqueues rows; a (subscriptionId, eventId) already stored is left as it is. Answers how many were new. */
  enqueue(deliveries: readonly NewDelivery[], now: Date): Promise<number>;
  /**
   * The oldest pending row of the subscription's queue, or null. Here and in
   * `pendingRows` (the dispatcher's reads) an adapter may leave out its attempts'
   * `request` and `response`; `get` and `listDeliveries` give them.
   */
  head(subscriptionId: string): Promise<Delivery | null>;
  /**
   * The subscription's pending rows in queue order, up to `limit`: the head first,
   * then the rows behind it (one dispatcher turn reads them at once).
   */
  pendingRows(subscriptionId: string, limit: number): Promise<readonly Delivery[]>;
  /** One row. */
  get(subscriptionId: string, eventId: string): Promise<Delivery | null>;
  /**
   * At most `limit` queues due at `now`, the longest-waiting first, without those
   * `skip` names. Read from each queue's due time, kept beside the subscription
   * (never by reading the rows), so its cost does not grow with the rows a stalled
   * receiver has pending.
   *
   * A queue's due time is the later of its head's `nextAttemptAt` and its health's
   * `holdUntil`; none while it has no pending row, or its subscription is disabled,
   * ended or stopped. Writes that can make a queue due sooner (new rows in an empty
   * queue, a redelivery, `enableDelivery`) move its due time at once; the writes of
   * attempts do not: `settleQueue` (which the dispatcher calls when a turn ends) and
   * `setHealth` set it from the queue's head. So a queue is never missed while due,
   * and one attempted since its last settle may be listed though its head waits.
   */
  dueQueues(now: Date, limit: number, skip?: DueQueuesSkip): Promise<DueQueues>;
  /** Sets the queue's due time from its head and health (see `dueQueues`). */
  settleQueue(subscriptionId: string): Promise<void>;
  /**
   * Stores the subscription's health (with `version` one more than `expectedVersion`)
   * and settles its queue; false, and nothing written, when its stored health is
   * not at `expectedVersion` any more, or the subscription is unknown.
   */
  setHealth(subscriptionId: string, health: Omit<QueueHealth, 'version'>, expectedVersion: number): Promise<boolean>;
  /** The subscription's health (`HEALTHY` for one never written), or null when it is unknown. */
  health(subscriptionId: string): Promise<QueueHealth | null>;
  /**
   * The company enabled a paused or disabled subscription (or it recovered): its
   * health is healthy again (status and logged status `active`, the version moved
   * on) and its queue due from its head. False for an unknown, ended or stopped one.
   */
  enableDelivery(subscriptionId: string): Promise<boolean>;
  /**
   * Records an attempt on a pending row and moves it to the outcome. False (and
   * nothing written) when the row is not pending any more. `sentEnvelope`, the body
   * the attempt sent: when the row's envelope is not that any more (a person's
   * erasure rewrote it while the attempt was in flight), the attempt is kept as
   * `erasedAttempt` makes it, since its response may echo what was erased.
   */
  recordAttempt(subscriptionId: string, eventId: string, attempt: DeliveryAttempt, outcome: AttemptOutcome, sentEnvelope?: string): Promise<boolean>;
  /**
   * The receiver is gone (410): its queue stops at once (pending rows `failed`,
   * `gone`), before the fan-out folds the WebhookUnsubscribed that follows.
   */
  stopSubscription(subscriptionId: string, at: Date): Promise<void>;
  /** The subscription's rows, newest first (by log position). `page` is 1-based. */
  listDeliveries(subscriptionId: string, page: { readonly page: number; readonly limit: number }): Promise<DeliveryPage>;
  /** Puts one delivered or failed row back in the queue, keeping its event id. */
  redeliver(subscriptionId: string, eventId: string, now: Date): Promise<RedeliverResult>;
  /**
   * Puts back every `failed` row of the subscription whose event occurred at or
   * after `since`. Answers how many; 0 for an ended subscription.
   */
  redeliverFailedSince(subscriptionId: string, since: Date, now: Date): Promise<number>;
  /**
   * How many rows are in each state, over every subscription (for metrics): read
   * from counters the outbox keeps as rows are written, never by scanning the rows.
   */
  depthByState(): Promise<Record<DeliveryState, number>>;
  /**
   * Retention: deletes at most `limit` `delivered` or `failed` rows that became
   * final before `before` (oldest first). Pending rows are never pruned. Answers
   * how many were deleted (fewer than `limit`: nothing older is left).
   */
  pruneCompleted(before: Date, limit: number): Promise<number>;
  /**
   * Erasure of a person: the envelope of each row of the company's subscriptions
   * (pending or final) whose text holds `id` (the person's id) becomes what
   * `rewrite` makes of it, so that a pending delivery goes out with the person's
   * fields erased and the delivery log keeps none; and its attempts' responses are
   * emptied (`erasedAttempt`): a receiver may have echoed the body back. Returns how
   * many rows changed.
   */
  eraseMentions(companyId: string, id: string, rewrite: (envelope: string) => string): Promise<number>;
  /**
   * Erasure of a company: every row of its subscriptions, pending or final, is
   * deleted (a pending delivery never goes out; the delivery log keeps none), and
   * the counts by state follow. Returns how many rows were deleted.
   */
  forgetCompany(companyId: string): Promise<number>;
  /** Releases what the outbox itself opened (a shared connection stays open). */
  close(): Promise<void>;
}

/** Attempts kept per row (older ones are dropped). */
export const MAX_KEPT_ATTEMPTS = 100;

/** A sort key whose string order is the queue order: position (zero-padded), then ordinal. */
export const queueKey = (position: Position, ordinal: number): string => {
  if (!isPosition(position) || position.length > 40) {
    throw new Error(`Cannot order by position ${JSON.stringify(position)}`);
  }
  if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal > 999_999) throw new Error(`Bad ordinal ${ordinal}`);
  return `${position.padStart(40, '0')}.${String(ordinal).padStart(6, '0')}`;
};

/** A position as a key whose string order is numeric order. */
export const positionKey = (position: Position): string => {
  if (!isPosition(position) || position.length > 40) {
    throw new Error(`Not a position: ${JSON.stringify(position)}`);
  }
  return position.padStart(40, '0');
};

/** Reverses `positionKey`. */
export const fromPositionKey = (key: string): Position => key.replace(/^0+(?=\d)/, '');
