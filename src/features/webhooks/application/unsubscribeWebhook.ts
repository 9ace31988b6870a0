import * as E from 'fp-ts/lib/Either.js';
import { webhookDecider } from '../domain/webhookDecider.js';
import type { UnsubscribeReason } from '../domain/webhookEvents.js';
import type { WebhookError } from '../domain/webhookErrors.js';
import { WebhookEvent, webhookStream } from '../domain/webhookEvents.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WebhookCommandDeps } from './subscribeWebhook.js';

/**
 * Ends a subscription of the company, at the client's request or because its
 * receiver answered 410 Gone, and forgets its signing secret. Left: unknown,
 * another company's, or already ended.
 */
export const unsubscribeWebhook = async (
  deps: WebhookCommandDeps,
  input: { readonly subscriptionId: string; readonly companyId: string; readonly reason: UnsubscribeReason; readonly metadata: EventMetadata },
): Promise<E.Either<WebhookError, { readonly position: Position | null }>> => {
  const { subscriptionId, companyId, reason } = input;
  const outcome = await handleCommand(deps, {
    decider: webhookDecider,
    eventCodec: WebhookEvent,
    stream: webhookStream(subscriptionId),
    command: { type: 'UnsubscribeWebhook', subscriptionId, companyId, reason, at: deps.clock.now() },
    metadata: input.metadata,
  });
  if (E.isLeft(outcome)) return outcome;
  await deps.secrets.delete(subscriptionId);
  return E.right({ position: outcome.right.position });
};
