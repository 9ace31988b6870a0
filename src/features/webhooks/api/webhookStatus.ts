import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { WebhookOutbox } from '../../../application/ports/WebhookOutbox.js';
import type { ReadModelProgress } from '../../../application/subscriptions/ReadModelProgress.js';
import { webhookAggregate } from '../application/webhookAggregate.js';
import { changeDeliveryStatus } from '../application/changeDeliveryStatus.js';
import { apiMetadata } from '../../../http/apiMetadata.js';
import { HttpError } from '../../../http/HttpError.js';
import { afterWrite } from '../../../http/middleware/consistentReads.js';
import { authOf, requirePermission } from '../../../http/middleware/requirePermission.js';
import { entityHistoryRoute } from '../../../http/routes/entityHistory.js';

export interface WebhookStatusRoutesDeps {
  readonly commands: CommandDeps;
  readonly outbox: Pick<WebhookOutbox, 'enableDelivery'>;
  /** Tells the dispatcher that a queue may be due (absent when this process runs no dispatcher: it polls). */
  readonly wake?: () => void;
  readonly progress: ReadModelProgress;
  readonly readYourWritesTimeoutMs: number;
}

/** Subscription ids are UUIDs; anything else cannot name one (and never reaches the store). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const subscriptionNotFound = (): HttpError =>
  new HttpError(404, 'Webhook subscription not found', 'No active webhook subscription with this id exists in your company.');

/** Ended subscriptions keep their history. */
const noSuchSubscription = (): HttpError =>
  new HttpError(404, 'Webhook subscription not found', 'No webhook subscription with this id exists in your company.');

/**
 * A subscription's delivery status: its history (`GET /webhooks/:id/history`: its
 * stored events, subscribed, paused, disabled, enabled, unsubscribed, read from the
 * log itself), and `POST /webhooks/:id/enable`: deliveries to a subscription the dispatcher paused or
 * disabled go on at once, from its oldest pending event, in order. Recorded as
 * `WebhookEnabled {reason: 'client'}`; enabling an active subscription records
 * nothing and answers the same (the outbox is told again all the same, so an
 * enable whose outbox write was cut short is completed by sending it again).
 */
export const webhookStatusRoutes = (deps: WebhookStatusRoutesDeps): Router => {
  const router = new Router();

  router.get(
    '/webhooks/:id/history',
    requirePermission('webhooks:read'),
    entityHistoryRoute(deps.commands.eventStore, webhookAggregate, noSuchSubscription),
  );

  router.post('/webhooks/:id/enable', requirePermission('webhooks:write'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const rawId = ctx.params.id!;
    if (!UUID.test(rawId)) throw subscriptionNotFound();
    const subscriptionId = rawId.toLowerCase();
    const changed = await changeDeliveryStatus(deps.commands, {
      subscriptionId,
      companyId,
      change: { to: 'active', reason: 'client' },
      metadata: apiMetadata(ctx.state),
    });
    // Unknown, another company's, or ended: there is no subscription to enable.
    if (E.isLeft(changed)) throw subscriptionNotFound();
    await deps.outbox.enableDelivery(subscriptionId);
    deps.wake?.();
    const { position } = changed.right;
    await afterWrite(ctx, deps.progress, position, deps.readYourWritesTimeoutMs);
    ctx.body = {
      success: true,
      message:
        position === null
          ? `Webhook subscription ${subscriptionId} is active: nothing to enable.`
          : `Enabled: webhook subscription ${subscriptionId} receives its pending deliveries again, in order.`,
      data: { id: subscriptionId, delivery_status: 'active' },
    };
  });

  return router;
};
