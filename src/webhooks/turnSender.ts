import { performance } from 'node:perf_hooks';
import { systemClock, type Clock } from '../shared/Clock.js';
import type { SendDelivery } from './deliveryAgent.js';
import { webhookSigner } from './signing.js';

/**
 * How the dispatcher's HTTP attempts are made: one turn of a queue at a time, its
 * rows sent in order, each after the one before it got a 200. The dispatcher reads
 * the rows, records what each attempt came to and decides what happens next; a
 * `SendTurn` only signs, sends and times.
 */

/** One row of a turn: what is signed and POSTed. */
export interface TurnRow {
  /** `webhook-id` (the row's `metadata.eventId`). */
  readonly eventId: string;
  readonly envelope: string;
}

export interface TurnRequest {
  readonly url: string;
  /** The subscription's `whsec_…` secret (checked by the caller: `webhookSigner` accepts it). */
  readonly secret: string;
  readonly rows: readonly TurnRow[];
  /** Total time of one attempt: connect, request, response headers and body. */
  readonly timeoutMs: number;
}

/** One attempt as it will be recorded, and the receiver's `Retry-After` (or null). */
export interface SentAttempt {
  /** When it started (ISO 8601), its status (null: no response), why it got none, how long it took. */
  readonly at: string;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly latencyMs: number;
  readonly retryAfter: string | null;
}

/** When a turn ends early. */
export interface TurnSignals {
  /** No row is sent after it aborts; the attempt in flight goes on, and is yielded. */
  readonly finish: AbortSignal;
  /** Aborts the attempt in flight too, which is not yielded: it was not the receiver's answer, and is made again later. */
  readonly stop: AbortSignal;
}

/**
 * Sends a turn's rows in order and yields their attempts in order, the i-th for the
 * i-th row, in batches of those made since the last (at least one each): the next
 * row is sent only after a 200, so the attempts end at the first other outcome (a
 * status, a timeout, an error), after the last row, or early (`signals`). Breaking
 * out of the loop ends the turn as `stop` does.
 *
 * Implementations: `sendTurnsHere` (this event loop, one attempt per batch, each row
 * sent only when the caller asks for the next) and the delivery thread
 * (`deliveryThread.ts`: the turn's rows sent on a thread of their own, ahead of the
 * caller's records).
 */
export type SendTurn = (request: TurnRequest, signals: TurnSignals) => AsyncIterable<readonly SentAttempt[]>;

/** The error text recorded for an attempt that got no response. */
export const describeError = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
};

export class AttemptTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(ms: number) {
    super(`No complete response within ${ms} ms`);
  }
}

/**
 * The attempts of one turn on this event loop, through `send`: one abort controller
 * serves the turn's attempts one after another, each under its own timeout, until one
 * is aborted (a timeout, `stop`); the next attempt then gets a new one. (A controller
 * per attempt cost the delivery loop about 3%.) Each row is sent when the caller asks
 * for it, so here an attempt is recorded before the next row is sent.
 */
export const sendTurnsHere = (send: SendDelivery, clock: Clock = systemClock): SendTurn =>
  async function* sendTurn({ url, secret, rows, timeoutMs }, { finish, stop }) {
    const sign = webhookSigner(secret);
    let controller: AbortController | null = null;
    const onStop = (): void => controller?.abort(stop.reason);
    stop.addEventListener('abort', onStop, { once: true });
    try {
      for (const row of rows) {
        if (stop.aborted || finish.aborted) return;
        if (controller === null || controller.signal.aborted) controller = new AbortController();
        const current = controller;
        const startedAt = clock.now();
        const started = performance.now();
        const timer = setTimeout(() => current.abort(new AttemptTimeoutError(timeoutMs)), timeoutMs);
        let sent: SentAttempt;
        try {
          const response = await send({ url, headers: sign(row.eventId, startedAt, row.envelope), body: row.envelope }, current.signal);
          sent = attemptOf(startedAt, started, response.status, null, response.retryAfter);
        } catch (cause) {
          if (stop.aborted) return;
          sent = attemptOf(startedAt, started, null, describeError(cause), null);
        } finally {
          clearTimeout(timer);
        }
        yield [sent];
        if (sent.statusCode !== 200) return;
      }
    } finally {
      stop.removeEventListener('abort', onStop);
    }
  };

const attemptOf = (startedAt: Date, started: number, statusCode: number | null, error: string | null, retryAfter: string | null): SentAttempt => ({
  at: startedAt.toISOString(),
  statusCode,
  error,
  latencyMs: Math.round(performance.now() - started),
  retryAfter,
});
