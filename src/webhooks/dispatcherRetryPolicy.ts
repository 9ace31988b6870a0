/**
 * When a failed attempt is tried again.
 *
 * - Attempt n of a row (1-based, counted since it was queued or requeued) that
 *   fails is retried after `retryDelaysMs[n-1]` (±20% jitter, so receivers that
 *   come back are not hit by every queue at the same instant), until the list is
 *   used up: `retryDelaysMs.length` retries, then the row is `failed`.
 * - On 429 and 503 a `Retry-After` (seconds or an HTTP date) is honoured: the
 *   wait is the larger of the jittered delay and `Retry-After`, the latter
 *   capped at `maxRetryAfterMs` (10 minutes), so a receiver can slow its queue
 *   down but never speed it up, nor hold it for hours. It still counts as a retry.
 */

export const DEFAULT_MAX_RETRY_AFTER_MS = 10 * 60_000;
/** ±20%. */
export const JITTER = 0.2;

/** The milliseconds a `Retry-After` value asks for, or null when it is absent or unreadable. */
export const parseRetryAfter = (value: string | null, now: Date): number | null => {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date has a weekday and a zone; a bare number would have matched above.
  if (!/[A-Za-z]/.test(trimmed)) return null;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
};

export interface RetryInput {
  /** The number, since the row was (re)queued, of the attempt that just failed (1-based). */
  readonly attempt: number;
  readonly retryDelaysMs: readonly number[];
  /** The receiver's status, or null when there was no response. */
  readonly statusCode: number | null;
  readonly retryAfter: string | null;
  readonly now: Date;
  /** Uniform in [0, 1). */
  readonly random: () => number;
  readonly maxRetryAfterMs?: number;
}

/** Milliseconds until the next attempt, or null when that was the last one. */
export const nextRetryDelayMs = (input: RetryInput): number | null => {
  const base = input.retryDelaysMs[input.attempt - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * input.random()));
  if (input.statusCode !== 429 && input.statusCode !== 503) return jittered;
  const asked = parseRetryAfter(input.retryAfter, input.now);
  if (asked === null) return jittered;
  return Math.max(jittered, Math.min(asked, input.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS));
};

/**
 * What the receiver's answer (or its absence) means for the row, decided from the
 * answer and the retry policy alone:
 * - `delivered`: a 200, and only a 200;
 * - `gone`: a 410, which ends the subscription; `retryInMs` is the retry to fall
 *   back on when the subscription cannot be ended right now (null: that was the last);
 * - `retry` in `retryInMs`, or `failed` once the retries are used up.
 */
export type AttemptDecision =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'gone'; readonly retryInMs: number | null }
  | { readonly kind: 'retry'; readonly retryInMs: number }
  | { readonly kind: 'failed' };

export const decideAttempt = (input: RetryInput): AttemptDecision => {
  if (input.statusCode === 200) return { kind: 'delivered' };
  const retryInMs = nextRetryDelayMs(input);
  if (input.statusCode === 410) return { kind: 'gone', retryInMs };
  return retryInMs === null ? { kind: 'failed' } : { kind: 'retry', retryInMs };
};
