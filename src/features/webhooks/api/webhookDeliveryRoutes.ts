import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { Delivery, WebhookOutbox } from '../../../application/ports/WebhookOutbox.js';
import { redeliverWebhook, type Redelivery } from '../application/redeliverWebhook.js';
import { attemptDetail, isTestDelivery } from '../application/deliveryViews.js';
import type { Clock } from '../../../shared/Clock.js';
import { parseInstant } from '../../../shared/instant.js';
import type { WebhookDoc } from '../readModels/webhooksProjection.js';
import { HttpError } from '../../../http/HttpError.js';
import { authOf, requirePermission } from '../../../http/middleware/requirePermission.js';
import { decodeListParams, pageMeta, validationFailed } from '../../../http/query/listQuery.js';

export interface WebhookDeliveryRoutesDeps {
  readonly webhooks: DocumentCollection<WebhookDoc>;
  readonly outbox: WebhookOutbox;
  readonly clock: Clock;
  /** Tells the dispatcher that something was queued (absent when this process runs no dispatcher). */
  readonly wake?: () => void;
}

const notFound = (): HttpError =>
  new HttpError(404, 'Webhook subscription not found', 'No webhook subscription with this id exists in your company.');

/** What an integrator sees of one delivery in the log: the event, where it stands, every attempt in short. */
const view = (delivery: Delivery) => ({
  eventId: delivery.eventId,
  event: delivery.eventType,
  occurredAt: delivery.occurredAt,
  state: delivery.state,
  test: isTestDelivery(delivery),
  attempts: delivery.attempts.map((a) => ({ at: a.at, statusCode: a.statusCode, error: a.error, errorKind: a.errorKind ?? null, latencyMs: a.latencyMs })),
  nextAttemptAt: delivery.nextAttemptAt,
  completedAt: delivery.completedAt,
  failureReason: delivery.failureReason,
});

/** One delivery with every attempt in full: the request as sent, the response as received. */
const detailView = (delivery: Delivery) => ({ ...view(delivery), attempts: delivery.attempts.map((a) => attemptDetail(delivery, a)) });

/**
 * Visibility and recovery for integrators: the deliveries of a subscription
 * (newest first) and redelivery of one event or of everything that failed since
 * a time, always with the same event ids.
 */
export const webhookDeliveryRoutes = (deps: WebhookDeliveryRoutesDeps): Router => {
  const router = new Router();

  /** The caller's subscription (ended ones too: their history stays visible). */
  const subscriptionOf = async (companyId: string, id: string): Promise<WebhookDoc> => {
    const doc = await deps.webhooks.get(companyId, id);
    if (!doc) throw notFound();
    return doc;
  };

  router.get('/webhooks/:id/deliveries', requirePermission('webhooks:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const subscription = await subscriptionOf(companyId, ctx.params.id!);
    const params = decodeListParams(ctx.query, {});
    if (E.isLeft(params)) throw validationFailed(params.left);
    const { page, limit } = params.right;
    const result = await deps.outbox.listDeliveries(subscription.id, { page, limit });
    ctx.body = { success: true, data: result.items.map(view), meta: pageMeta(page, limit, result.total) };
  });

  router.get('/webhooks/:id/deliveries/:eventId', requirePermission('webhooks:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const subscription = await subscriptionOf(companyId, ctx.params.id!);
    const delivery = await deps.outbox.get(subscription.id, ctx.params.eventId!);
    if (!delivery) throw new HttpError(404, 'Delivery not found', 'This subscription has no delivery with this event id.');
    ctx.body = { success: true, data: detailView(delivery) };
  });

  router.post('/webhooks/:id/redeliver', requirePermission('webhooks:write'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const subscription = await subscriptionOf(companyId, ctx.params.id!);
    const body = ctx.request.body as Record<string, unknown> | null;
    const eventId = body && typeof body === 'object' ? body.eventId : undefined;
    const failedSince = body && typeof body === 'object' ? body.failedSince : undefined;
    if ((eventId === undefined) === (failedSince === undefined)) {
      throw validationFailed({ '(body)': 'send exactly one of eventId or failedSince' });
    }
    let redelivery: Redelivery;
    if (eventId !== undefined) {
      if (typeof eventId !== 'string' || eventId === '') throw validationFailed({ eventId: 'eventId must be an event id' });
      redelivery = { eventId };
    } else {
      const since = typeof failedSince === 'string' ? parseInstant(failedSince) : null;
      if (since === null) throw validationFailed({ failedSince: 'failedSince must be an ISO 8601 date, or a date-time with a zone' });
      redelivery = { failedSince: new Date(since) };
    }
    const result = await redeliverWebhook(deps, { subscriptionId: subscription.id, active: subscription.subscription.isActive, redelivery });
    if (E.isLeft(result)) {
      if (result.left === 'not_found') throw new HttpError(404, 'Delivery not found', 'This subscription has no delivery with this event id.');
      throw new HttpError(409, 'Webhook subscription is not active', 'Deliveries of an ended subscription cannot be sent again.');
    }
    const { requeued } = result.right;
    ctx.body = {
      success: true,
      message: requeued === 0 ? 'Nothing to redeliver: the delivery is already queued.' : `Queued ${requeued} deliveries again.`,
      data: { requeued },
    };
  });

  return router;
};
