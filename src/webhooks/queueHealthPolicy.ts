import type { QueueHealth } from '../application/ports/WebhookOutbox.js';

/**
 * When a receiver that keeps failing is paused, and then disabled.
 *
 * - Each row is retried per `WEBHOOK_RETRY_DELAYS_MS` (the spec's 3 retries). While
 *   the receiver fails, `failingSince` keeps its first failed attempt since the last
 *   delivery.
 * - A row that used up its retries **pauses** the subscription: its queue is held for
 *   `pauseDelaysMs[0]`, then one attempt is made at its head (the next row); each
 *   further failure holds it for the next delay (the last one repeats). Rows behind
 *   the head stay pending: nothing is lost, and order is kept. An attempt made while
 *   paused counts as one of its row's attempts, so no row is ever tried more than
 *   the spec's 4 times.
 * - The first 200 ends it (`recovered`): the queue goes on at once.
 * - A receiver failing for `disableAfterMs` since `failingSince` is **disabled**: the
 *   last hold ends at that time, and the attempt then, if it fails, disables it. A
 *   disabled queue is never due until the company enables it; its rows keep being
 *   queued and are delivered in order after that.
 */
export interface PausePolicy {
  /** How long each successive hold of a paused queue lasts; the last one repeats. */
  readonly pauseDelaysMs: readonly number[];
  /** How long a receiver may fail every attempt before it is disabled. */
  readonly disableAfterMs: number;
}

/** Svix's documented choice (endpoints failing for 5 days are disabled); Stripe disables after several days. */
export const DEFAULT_PAUSE_POLICY: PausePolicy = {
  pauseDelaysMs: [60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 21_600_000],
  disableAfterMs: 5 * 24 * 3_600_000,
};

/** A queue's health without its version: what the dispatcher decides and writes. */
export type HealthChange = Omit<QueueHealth, 'version'>;

/** What an attempt came to for its row: delivered, to be retried (its retries not used up), or failed after its last retry. */
export type RowResult = 'delivered' | 'retry' | 'exhausted';

/**
 * The queue's health after an attempt that started at `attemptAt` and was decided
 * at `now`; null when nothing changes. `loggedStatus` is carried over (the caller
 * appends the event of a new status, then records that it is logged).
 */
export const nextHealth = (health: QueueHealth, result: RowResult, attemptAt: Date, now: Date, policy: PausePolicy): HealthChange | null => {
  const { loggedStatus } = health;
  if (result === 'delivered') {
    if (health.status === 'active' && health.failingSince === null && health.pauses === 0 && health.holdUntil === null) return null;
    return { status: 'active', loggedStatus, failingSince: null, pauses: 0, holdUntil: null };
  }
  const failingSince = health.failingSince ?? attemptAt.toISOString();
  // An active queue whose row has retries left follows that row's schedule.
  if (health.status === 'active' && result === 'retry') {
    return health.failingSince === null ? { ...withoutVersion(health), failingSince } : null;
  }
  const disableAt = Date.parse(failingSince) + policy.disableAfterMs;
  if (now.getTime() >= disableAt) return { status: 'disabled', loggedStatus, failingSince, pauses: health.pauses, holdUntil: null };
  const pauses = health.pauses + 1;
  const delays = policy.pauseDelaysMs;
  const delay = delays[Math.min(pauses, delays.length) - 1] ?? 0;
  // The last hold ends when the receiver has failed for `disableAfterMs`: its attempt then decides.
  const holdUntil = new Date(Math.min(now.getTime() + delay, disableAt)).toISOString();
  return { status: 'paused', loggedStatus, failingSince, pauses, holdUntil };
};

const withoutVersion = ({ version: _version, ...health }: QueueHealth): HealthChange => health;
