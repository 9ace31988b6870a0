import * as E from 'fp-ts/lib/Either.js';
import type { WebhookCommand } from '../domain/webhookCommands.js';
import { webhookDecider } from '../domain/webhookDecider.js';
import type { WebhookError } from '../domain/webhookErrors.js';
import { WebhookEvent, webhookStream, type EnableReason } from '../domain/webhookEvents.js';
import type { EventMetadata } from '../../../shared/EventMetadata.js';
import type { Position } from '../../../shared/Position.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import { handleCommand } from '../../../application/commands/handleCommand.js';

/** What happens to a subscription's deliveries. */
export type DeliveryStatusCommand =
  | { readonly to: 'paused' | 'disabled'; readonly failingSince: Date }
  | { readonly to: 'active'; readonly reason: EnableReason };

const commandOf = (subscriptionId: string, companyId: string, change: DeliveryStatusCommand, at: Date): WebhookCommand => {
  switch (change.to) {
    case 'paused':
      return { type: 'PauseWebhook', subscriptionId, companyId, failingSince: change.failingSince, at };
    case 'disabled':
      return { type: 'DisableWebhook', subscriptionId, companyId, failingSince: change.failingSince, at };
    case 'active':
      return { type: 'EnableWebhook', subscriptionId, companyId, reason: change.reason, at };
  }
};

/**
 * Pauses, disables or enables the deliveries of a subscription of the company,
 * through the domain. `position` is null when the subscription already was so
 * (nothing appended). Left: unknown, another company's, or ended.
 */
export const changeDeliveryStatus = async (
  deps: CommandDeps,
  input: { readonly subscriptionId: string; readonly companyId: string; readonly change: DeliveryStatusCommand; readonly metadata: EventMetadata },
): Promise<E.Either<WebhookError, { readonly position: Position | null }>> => {
  const { subscriptionId, companyId, change } = input;
  const outcome = await handleCommand(deps, {
    decider: webhookDecider,
    eventCodec: WebhookEvent,
    stream: webhookStream(subscriptionId),
    command: commandOf(subscriptionId, companyId, change, deps.clock.now()),
    metadata: input.metadata,
  });
  return E.map((done: { readonly position: Position | null }) => ({ position: done.position }))(outcome);
};
