import type { Delivery, DeliveryAttempt } from '../../../application/ports/WebhookOutbox.js';

/**
 * Whether a delivery is a test one (`sendTestEvent`): its envelope says
 * `metadata.test: true`. Real events never do.
 */
export const isTestDelivery = (delivery: Pick<Delivery, 'envelope'>): boolean => {
  try {
    const parsed = JSON.parse(delivery.envelope) as { metadata?: { test?: unknown } } | null;
    return parsed?.metadata?.test === true;
  } catch {
    return false;
  }
};

/** One attempt as the API and the console show it in full: what was sent and what came back. */
export interface AttemptDetail {
  readonly at: string;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly errorKind: DeliveryAttempt['errorKind'] | null;
  readonly latencyMs: number;
  /** Null on attempts recorded before requests were kept, and when nothing was sent (no secret). */
  readonly request: { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly body: string } | null;
  /** Null without a response (see `error`), and on attempts recorded before responses were kept. */
  readonly response: {
    readonly statusCode: number | null;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
    readonly bodyTruncated: boolean;
    readonly erased: boolean;
  } | null;
}

/** An attempt of `delivery` in full: its request's body is the delivery's envelope, as sent. */
export const attemptDetail = (delivery: Pick<Delivery, 'envelope'>, attempt: DeliveryAttempt): AttemptDetail => ({
  at: attempt.at,
  statusCode: attempt.statusCode,
  error: attempt.error,
  errorKind: attempt.errorKind ?? null,
  latencyMs: attempt.latencyMs,
  request: attempt.request ? { url: attempt.request.url, headers: attempt.request.headers, body: delivery.envelope } : null,
  response: attempt.response
    ? {
        statusCode: attempt.statusCode,
        headers: attempt.response.headers,
        body: attempt.response.body,
        bodyTruncated: attempt.response.bodyTruncated,
        erased: attempt.response.erased === true,
      }
    : null,
});
