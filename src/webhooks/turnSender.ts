import { performance } from 'node:perf_hooks';
import { systemClock, type Clock } from '../shared/Clock.js';
import { redactHeaders, type AttemptErrorKind, type AttemptRequest, type AttemptResponse } from '../application/ports/WebhookOutbox.js';
import { deliveryHeaders, type DeliveryResponse, type SendDelivery } from './deliveryAgent.js';
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
  /**
   * The subscription's `whsec_…` secrets to sign with (checked by the caller: `webhookSigner`
   * accepts them): its secret, and while a rotation's overlap lasts, the previous one after it.
   */
  readonly secrets: readonly string[];
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
  /** `error` in one word (null with a status). Optional for senders that do not tell. */
  readonly errorKind?: AttemptErrorKind | null;
  /** What was sent (the body is the row's envelope); null when nothing was. */
  readonly request?: AttemptRequest | null;
  /** The response's headers (redacted) and first bytes of its body, or null without a response. */
  readonly response?: AttemptResponse | null;
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

/** Why an attempt got no response, in one word, from its error's code or name. */
export const errorKindOf = (error: unknown): AttemptErrorKind => {
  if (!(error instanceof Error)) return 'other';
  const code = String((error as NodeJS.ErrnoException).code ?? '');
  if (error.name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || /closed the connection/.test(error.message)) return 'connection_reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'dns';
  if (code === 'EREFUSEDADDRESS') return 'refused_address';
  if (error.name === 'UnsupportedTargetError') return 'invalid_target';
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|EPROTO$|HOSTNAME_MISMATCH)/.test(code) || /certificate|TLS|SSL/i.test(error.message)) return 'tls';
  return 'other';
};

/** What a response leaves in the delivery log: its headers (redacted) and the first bytes of its body. */
export const responseOf = (response: DeliveryResponse): AttemptResponse | null =>
  response.headers === undefined && response.body === undefined
    ? null
    : {
        headers: redactHeaders(response.headers ?? {}),
        // NUL is the one character no store keeps as text (PostgreSQL refuses it).
        body: (response.body ?? '').split('\u0000').join('\uFFFD'),
        bodyTruncated: response.bodyTruncated ?? false,
      };

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
  async function* sendTurn({ url, secrets, rows, timeoutMs }, { finish, stop }) {
    const sign = webhookSigner(secrets);
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
        const headers = sign(row.eventId, startedAt, row.envelope);
        const request: AttemptRequest = { url, headers: { ...headers, ...deliveryHeaders(Buffer.byteLength(row.envelope, 'utf8')) } };
        try {
          const response = await send({ url, headers, body: row.envelope }, current.signal);
          sent = { ...attemptOf(startedAt, started, response.status, null, response.retryAfter), errorKind: null, request, response: responseOf(response) };
        } catch (cause) {
          if (stop.aborted) return;
          sent = { ...attemptOf(startedAt, started, null, describeError(cause), null), errorKind: errorKindOf(cause), request, response: null };
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

const attemptOf = (startedAt: Date, started: number, statusCode: number | null, error: string | null, retryAfter: string | null) => ({
  at: startedAt.toISOString(),
  statusCode,
  error,
  latencyMs: Math.round(performance.now() - started),
  retryAfter,
});
