import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): three headers
 * on every delivery.
 *
 * - `webhook-id`: the event id (`metadata.eventId`), the same on every retry and redelivery;
 * - `webhook-timestamp`: the attempt's time in whole unix seconds;
 * - `webhook-signature`: `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`,
 *   keyed with the base64-decoded part of the subscription's `whsec_…` secret. While a
 *   rotated secret is still valid, one such signature per secret, the new one first,
 *   separated by a space (`v1,<new> v1,<previous>`): a receiver accepts the delivery when
 *   any of them matches a secret it knows.
 *
 * Receivers verify with any Standard Webhooks library (`new Webhook(secret).verify(body, headers)`)
 * and reject timestamps too far from their clock, which stops replays.
 */

const SECRET_PREFIX = 'whsec_';

export interface SignatureInput {
  /** The event id (`webhook-id`). */
  readonly id: string;
  /** When the attempt is made. */
  readonly timestamp: Date;
  /** The exact body sent. */
  readonly body: string;
  /** The subscription's secret, `whsec_` + base64 of at least 24 random bytes. */
  readonly secret: string;
}

export class InvalidWebhookSecretError extends Error {
  override readonly name = 'InvalidWebhookSecretError';
  constructor() {
    super('A webhook secret must be "whsec_" followed by base64');
  }
}

/** The HMAC key of a `whsec_` secret. */
export const webhookSecretKey = (secret: string): Buffer => {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw new InvalidWebhookSecretError();
  return Buffer.from(encoded, 'base64');
};

/** Unix seconds of `date` (what `webhook-timestamp` carries). */
export const unixSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/** `v1,<base64 HMAC-SHA256>` of `${id}.${unix seconds}.${body}`, keyed with `key` (`webhookSecretKey`). */
const sign = (key: Buffer, id: string, timestamp: Date, body: string): string =>
  `v1,${createHmac('sha256', key).update(`${id}.${unixSeconds(timestamp)}.${body}`, 'utf8').digest('base64')}`;

/** `v1,<base64 HMAC-SHA256>` of `${id}.${unix seconds}.${body}`. */
export const webhookSignature = ({ id, timestamp, body, secret }: SignatureInput): string =>
  sign(webhookSecretKey(secret), id, timestamp, body);

export type WebhookSignatureHeaders = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

/** The three Standard Webhooks headers of one attempt. */
export const webhookHeaders = (input: SignatureInput): WebhookSignatureHeaders =>
  webhookSigner(input.secret)(input.id, input.timestamp, input.body);

/** Signs attempts for one subscription: the headers of an attempt at `timestamp` sending `body`. */
export type WebhookSigner = (id: string, timestamp: Date, body: string) => WebhookSignatureHeaders;

/**
 * A signer keyed with `secrets` (one, or the current one and a rotated one still valid, in
 * that order: one signature each), decoded once (it throws `InvalidWebhookSecretError`
 * here rather than per attempt): the dispatcher makes one per queue turn instead
 * of decoding the secret for every delivery. The key stays in the closure; nothing
 * the signer returns or throws contains it.
 */
export const webhookSigner = (secrets: string | readonly string[]): WebhookSigner => {
  const keys = (typeof secrets === 'string' ? [secrets] : secrets).map(webhookSecretKey);
  if (keys.length === 0) throw new InvalidWebhookSecretError();
  return (id, timestamp, body) => ({
    'webhook-id': id,
    'webhook-timestamp': String(unixSeconds(timestamp)),
    'webhook-signature': keys.map((key) => sign(key, id, timestamp, body)).join(' '),
  });
};
