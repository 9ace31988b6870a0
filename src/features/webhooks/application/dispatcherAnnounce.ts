import { changeDeliveryStatus } from './changeDeliveryStatus.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { WebhookDispatcherDeps } from '../../../webhooks/dispatcher.js';

/**
 * The dispatcher's `announce`: a subscription's deliveries were paused, disabled
 * or resumed on their own, recorded through the domain as caused by the system
 * (`WebhookPaused`, `WebhookDisabled`, `WebhookEnabled {reason: 'recovered'}`).
 * A subscription already so, or one that has ended (or is unknown), is not an
 * error: there is nothing more to record.
 */
export const announceDeliveryStatus =
  (deps: CommandDeps): NonNullable<WebhookDispatcherDeps['announce']> =>
  async ({ subscriptionId, companyId }, change) => {
    // A left is an unknown or ended subscription: nothing to record.
    await changeDeliveryStatus(deps, {
      subscriptionId,
      companyId,
      change: change.status === 'active' ? { to: 'active', reason: 'recovered' } : { to: change.status, failingSince: new Date(change.failingSince) },
      metadata: { source: 'system', correlationId: deps.newId(), companyId },
    });
  };
