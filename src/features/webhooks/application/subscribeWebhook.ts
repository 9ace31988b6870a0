import * as E from 'fp-ts/lib/Either.js';
import type { StoredWebhookEventType } from '../domain/webhookEvents.js';
import { webhookDecider } from '../domain/webhookDecider.js';
import { describeWebhookError } from '../domain/webhookErrors.js';
import { WebhookEvent, webhookStream } from '../domain/webhookEvents.js';
import type { WebhookFilters } from '../domain/webhookFilters.js';
import type { WebhookSubscriptionRecord } from '../domain/webhookSubscription.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';
import type { WebhookSecretStore } from '../../../application/ports/WebhookSecretStore.js';

export interface WebhookCommandDeps extends CommandDeps {
  readonly secrets: Pick<WebhookSecretStore, 'put' | 'delete'>;
}

export interface NewSubscription {
  readonly subscription: WebhookSubscriptionRecord;
  /** The signing secret: shown once to the subscriber, kept only in the secret store. */
  readonly secret: string;
  readonly position: Position | null;
}

/**
 * Subscribes a target URL (already checked by the target-URL guard) to one event
 * type, with a new id and the given signing secret. The secret is stored first: a
 * subscription never exists without one (a secret without a subscription is inert).
 */
export const subscribeWebhook = async (
  deps: WebhookCommandDeps,
  input: {
    readonly companyId: string;
    readonly event: StoredWebhookEventType;
    readonly targetUrl: string;
    readonly filters: WebhookFilters;
    readonly secret: string;
    readonly metadata: EventMetadata;
  },
): Promise<NewSubscription> => {
  const subscriptionId = deps.newId();
  await deps.secrets.put(subscriptionId, input.secret);
  const { companyId, event, targetUrl, filters } = input;
  const outcome = await handleCommand(deps, {
    decider: webhookDecider,
    eventCodec: WebhookEvent,
    stream: webhookStream(subscriptionId),
    command: { type: 'SubscribeWebhook', subscriptionId, companyId, event, targetUrl, filters, at: deps.clock.now() },
    metadata: input.metadata,
  });
  // A fresh id never exists; if it did, the ids are broken, not the request.
  if (E.isLeft(outcome)) throw new Error(describeWebhookError(outcome.left));
  const { state, position } = outcome.right;
  if (state.status !== 'active') throw new Error(`Webhook subscription ${subscriptionId} was not created`);
  return { subscription: state.subscription, secret: input.secret, position };
};
