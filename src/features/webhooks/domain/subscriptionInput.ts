import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { formatValidationErrors } from '../../../shared/validationReporter.js';
import type { InputProblem } from '../../../shared/InputProblem.js';
import type { WebhookEventCatalogue } from '../../webhookEvents/index.js';
import { StoredWebhookEventType } from './webhookEvents.js';
import { WebhookFiltersInput } from './webhookFilters.js';


/** Longer target URLs are refused (browsers and proxies commonly stop around 2,000 characters). */
export const MAX_TARGET_URL_LENGTH = 2048;

/** What a subscription may listen to: the catalogue's webhook event types, and which of them tag filters apply to. */
export type SubscribableTypes = Pick<WebhookEventCatalogue, 'types' | 'isType' | 'isTagged'>;

/** A type of the catalogue (each one a stored subscription may name: the registry checks so at start). */
const eventTypeInput = (types: SubscribableTypes) => {
  const is = (u: unknown): u is StoredWebhookEventType => types.isType(u) && StoredWebhookEventType.is(u);
  return new t.Type<StoredWebhookEventType, string, unknown>(
    'event type',
    is,
    (u, c) => (is(u) ? t.success(u) : t.failure(u, c, `event must be one of ${types.types.join(', ')}`)),
    t.identity,
  );
};

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
const subscribeBody = (types: SubscribableTypes) =>
  t.exact(t.intersection([t.type({ event: eventTypeInput(types), target_url: TargetUrlInput }), t.partial({ filters: WebhookFiltersInput })]));

export interface SubscribeFields {
  readonly event: StoredWebhookEventType;
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
export const validateSubscribe = (body: unknown, types: SubscribableTypes): E.Either<InputProblem, SubscribeFields> => {
  if (!isObject(body)) return E.left(notAnObject);
  const missing = missingOf(body, ['event', 'target_url']);
  if (missing.length > 0) return E.left({ kind: 'MissingFields', fields: missing });
  const decoded = subscribeBody(types).decode(body);
  if (E.isLeft(decoded)) return E.left({ kind: 'Invalid', details: formatValidationErrors(decoded.left) });
  const { event, target_url, filters } = decoded.right;
  if (filters && !types.isTagged(event)) {
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
