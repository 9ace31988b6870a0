import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { formatValidationErrors } from '../../../shared/validationReporter.js';
import type { InputProblem } from '../../../shared/InputProblem.js';
import { isContactEventType, WEBHOOK_EVENT_TYPES, WebhookEventType } from '../../webhookEvents/index.js';
import { WebhookFiltersInput } from './webhookFilters.js';


/** Longer target URLs are refused (browsers and proxies commonly stop around 2,000 characters). */
export const MAX_TARGET_URL_LENGTH = 2048;

const EventTypeInput = new t.Type<WebhookEventType, string, unknown>(
  'event type',
  WebhookEventType.is,
  (u, c) =>
    WebhookEventType.is(u) ? t.success(u) : t.failure(u, c, `event must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`),
  t.identity,
);

/** The URL as sent, trimmed; whether it may be used is the target-URL guard's decision. */
const TargetUrlInput = new t.Type<string, string, unknown>(
  'target URL',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'target_url must be a string');
    const url = u.trim();
    if (url === '') return t.failure(u, c, 'target_url must be an http or https URL');
    return url.length <= MAX_TARGET_URL_LENGTH
      ? t.success(url)
      : t.failure(u, c, `target_url must be at most ${MAX_TARGET_URL_LENGTH} characters`);
  },
  t.identity,
);

/** POST /webhooks/subscribe body (unknown fields stripped). */
export const SubscribeBody = t.exact(
  t.intersection([t.type({ event: EventTypeInput, target_url: TargetUrlInput }), t.partial({ filters: WebhookFiltersInput })]),
);

export interface SubscribeFields {
  readonly event: WebhookEventType;
  /** Trimmed, not yet checked by the target-URL guard. */
  readonly targetUrl: string;
  readonly filters: t.TypeOf<typeof WebhookFiltersInput>;
}

const isObject = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body);

const notAnObject: InputProblem = { kind: 'Invalid', details: { '(body)': 'must be a JSON object' } };

const missingOf = (body: Record<string, unknown>, fields: readonly string[]): string[] =>
  fields.filter((field) => body[field] === undefined || body[field] === null);

/**
 * Validates a POST /webhooks/subscribe body: missing (absent or null) `event` and
 * `target_url` are reported first and alone; then one message per invalid field.
 * Tag filters apply to contact events only (a deal has no tags): on a `deal.*`
 * subscription they are refused rather than silently ignored.
 */
export const validateSubscribe = (body: unknown): E.Either<InputProblem, SubscribeFields> => {
  if (!isObject(body)) return E.left(notAnObject);
  const missing = missingOf(body, ['event', 'target_url']);
  if (missing.length > 0) return E.left({ kind: 'MissingFields', fields: missing });
  const decoded = SubscribeBody.decode(body);
  if (E.isLeft(decoded)) return E.left({ kind: 'Invalid', details: formatValidationErrors(decoded.left) });
  const { event, target_url, filters } = decoded.right;
  if (filters && !isContactEventType(event)) {
    return E.left({ kind: 'Invalid', details: { filters: 'tag filters apply to contact events (contact.*) only' } });
  }
  return E.right({ event, targetUrl: target_url, filters: filters ?? null });
};

/**
 * Validates a DELETE /webhooks/unsubscribe body: `subscription_id`, a non-empty
 * string (absent, null or blank: missing).
 */
export const validateUnsubscribe = (body: unknown): E.Either<InputProblem, { subscriptionId: string }> => {
  if (!isObject(body)) return E.left(notAnObject);
  const id = body.subscription_id;
  if (id === undefined || id === null || (typeof id === 'string' && id.trim() === '')) {
    return E.left({ kind: 'MissingFields', fields: ['subscription_id'] });
  }
  if (typeof id !== 'string') return E.left({ kind: 'Invalid', details: { subscription_id: 'subscription_id must be a string' } });
  return E.right({ subscriptionId: id.trim() });
};
