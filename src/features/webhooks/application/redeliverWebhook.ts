import * as E from 'fp-ts/lib/Either.js';
import type { Clock } from '../../../shared/Clock.js';
import type { WebhookOutbox } from '../../../application/ports/WebhookOutbox.js';

/** What to send again: one event (by its webhook event id), or every failed delivery of events since a time. */
export type Redelivery = { readonly eventId: string } | { readonly failedSince: Date };

/** Why nothing was sent again: no delivery of that event, or the subscription has ended. */
export type RedeliveryRefusal = 'not_found' | 'inactive';

export interface RedeliverWebhookDeps {
  readonly outbox: Pick<WebhookOutbox, 'redeliver' | 'redeliverFailedSince'>;
  readonly clock: Clock;
  /** Tells this process's dispatcher that something was queued (absent when none runs here). */
  readonly wake?: () => void;
}

/**
 * Puts deliveries of a subscription back in its queue, with their event ids and
 * bodies unchanged (receivers de-duplicate on the id): the API's
 * `POST /webhooks/:id/redeliver` and the console's buttons. The caller has found
 * the subscription in the company of the request. Answers how many were queued
 * again (0: the one asked for is queued already).
 */
export const redeliverWebhook = async (
  deps: RedeliverWebhookDeps,
  input: { readonly subscriptionId: string; readonly active: boolean; readonly redelivery: Redelivery },
): Promise<E.Either<RedeliveryRefusal, { readonly requeued: number }>> => {
  if (!input.active) return E.left('inactive');
  const now = deps.clock.now();
  let requeued: number;
  if ('eventId' in input.redelivery) {
    const result = await deps.outbox.redeliver(input.subscriptionId, input.redelivery.eventId, now);
    if (result === 'not_found' || result === 'inactive') return E.left(result);
    requeued = result === 'requeued' ? 1 : 0;
  } else {
    requeued = await deps.outbox.redeliverFailedSince(input.subscriptionId, input.redelivery.failedSince, now);
  }
  if (requeued > 0) deps.wake?.();
  return E.right({ requeued });
};
