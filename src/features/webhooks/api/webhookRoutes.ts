import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { Context, Middleware } from 'koa';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { ReadModelProgress } from '../../../application/subscriptions/ReadModelProgress.js';
import { subscribeWebhook, type WebhookCommandDeps } from '../application/subscribeWebhook.js';
import { unsubscribeWebhook } from '../application/unsubscribeWebhook.js';
import type { WebhookEventCatalogue } from '../../webhookEvents/index.js';
import { validateSubscribe, validateUnsubscribe } from '../domain/subscriptionInput.js';
import type { WebhookSubscriptionView } from '../domain/webhookSubscription.js';
import { decodeSigningSecrets, generateWebhookSecret } from '../../../shared/webhookSecret.js';
import { rotateWebhookSecret } from '../application/rotateWebhookSecret.js';
import { validateRotate } from '../domain/rotateInput.js';
import type { WebhookSecretStore } from '../../../application/ports/WebhookSecretStore.js';
import type { StoredBodyCodec } from '../../../http/middleware/idempotency.js';
import { checkTargetUrl, type ResolveHost } from '../../../webhooks/targetUrlGuard.js';
import { subscriptionOf, type WebhookDoc } from '../readModels/webhooksProjection.js';
import { activeSubscriptions, countActiveSubscriptions } from '../readModels/webhookQueries.js';
import { KeyedLock } from '../../../shared/keyedLock.js';
import { apiMetadata } from '../../../http/apiMetadata.js';
import { toHttpError } from '../../../http/errorTable.js';
import { HttpError } from '../../../http/HttpError.js';
import { afterWrite } from '../../../http/middleware/consistentReads.js';
import { authOf, requirePermission } from '../../../http/middleware/requirePermission.js';
import type { ApiResource } from '../../../http/ApiResource.js';
import { webhooksOpenApi } from './webhooksOpenApi.js';
import { webhooksProjection } from '../readModels/webhooksProjection.js';
import { webhookDeliveryRoutes } from './webhookDeliveryRoutes.js';
import { webhookStatusRoutes } from './webhookStatus.js';

export interface WebhookRoutesDeps {
  readonly webhooks: DocumentCollection<WebhookDoc>;
  /** The log, ids, time and the signing-secret store. */
  readonly commands: WebhookCommandDeps & { readonly secrets: Pick<WebhookSecretStore, 'get' | 'put' | 'delete'> };
  /** New signing secrets; default `generateWebhookSecret`. */
  readonly newSecret?: () => string;
  /** The target-URL guard's settings: `webhooks.allowPrivateTargets` and the resolver (DNS in production). */
  readonly targetUrls: { readonly allowPrivate: boolean; readonly resolve: ResolveHost };
  readonly progress: ReadModelProgress;
  readonly readYourWritesTimeoutMs: number;
  /** `Idempotency-Key` on POST /webhooks/subscribe (see `idempotency`, with `subscribeResponseCodec`); absent: ignored. */
  readonly idempotency?: Middleware;
  /** Subscriptions (not unsubscribed) one company may have (`WEBHOOK_MAX_SUBSCRIPTIONS_PER_COMPANY`). */
  readonly maxSubscriptionsPerCompany: number;
  /** The webhook event types a subscription may listen to. */
  readonly catalogue: WebhookEventCatalogue;
}

const passThrough: Middleware = (_ctx, next) => next();

/**
 * How a subscribe response is kept for idempotent replays: without its signing
 * secret (a secret lives only in the secret store), which a replay reads back from
 * there; null once the subscription has ended (its secret is deleted then), or once
 * its secret was rotated (the secret made at subscribe is not shown again, and the
 * new one was shown once, to whoever rotated it).
 */
export const subscribeResponseCodec = (secrets: Pick<WebhookSecretStore, 'get'>): StoredBodyCodec => ({
  store(body) {
    const { data } = body as { data: Record<string, unknown> };
    const { secret: _secret, ...rest } = data;
    return { ...(body as object), data: rest };
  },
  async replay(stored) {
    const { data } = stored as { data: { id: string } };
    const kept = await secrets.get(data.id);
    const signing = kept === null ? null : decodeSigningSecrets(kept);
    return { ...(stored as object), data: { ...data, secret: signing === null || signing.rotated ? null : signing.current } };
  },
});

const subscriptionNotFound = (): HttpError =>
  new HttpError(404, 'Webhook subscription not found', 'No active webhook subscription with this id exists in your company.');

/** Subscription ids are UUIDs; anything else cannot name one (and never reaches the store). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An item of GET /webhooks. */
const toListItem = (subscription: WebhookSubscriptionView) => ({
  id: subscription.id,
  subscription_id: subscription.id,
  event_type: subscription.event,
  target_url: subscription.targetUrl,
  is_active: subscription.isActive,
  created_at: subscription.createdAt,
  delivery_status: subscription.deliveryStatus,
  failing_since: subscription.failingSince,
});

const subscriptionLimitReached = (limit: number, current: number): HttpError =>
  new HttpError(
    409,
    'Webhook subscription limit reached',
    `Your company has ${current} webhook subscriptions, the most it may have (${limit}). Unsubscribe one before subscribing another.`,
    { code: 'WEBHOOK_SUBSCRIPTION_LIMIT', details: { limit, subscriptions: current } },
  );

const noNext = async (): Promise<void> => undefined;

/**
 * REST-hook subscriptions (Zapier, Make): subscribe, unsubscribe (with the id in
 * the body, or in the path for clients that drop DELETE bodies), list. The
 * signing secret is made at subscribe, kept in the secret store and shown once.
 */
export const webhookRoutes = (deps: WebhookRoutesDeps): Router => {
  const router = new Router();
  const newSecret = deps.newSecret ?? generateWebhookSecret;
  // A company's subscribes one at a time in this process: each counts the ones before it.
  const companyLock = new KeyedLock();

  router.get('/webhooks', requirePermission('webhooks:read'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const docs = await activeSubscriptions(deps.webhooks, companyId);
    ctx.body = { success: true, data: docs.map((doc) => toListItem(subscriptionOf(doc))) };
  });

  router.post('/webhooks/subscribe', requirePermission('webhooks:write'), deps.idempotency ?? passThrough, async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const fields = validateSubscribe(ctx.request.body, deps.catalogue);
    if (E.isLeft(fields)) throw toHttpError(fields.left);
    const { event, filters } = fields.right;
    // Deliveries carry the record, so the key must also be allowed to read it.
    await requirePermission(deps.catalogue.readPermissionOf(event))(ctx, noNext);

    const checked = await checkTargetUrl(fields.right.targetUrl, deps.targetUrls);
    if (!checked.ok) throw toHttpError({ kind: 'Invalid', details: { target_url: `target_url ${checked.reason}` } });

    const { subscription, secret } = await companyLock.run(companyId, async () => {
      // Counted in the read model, which holds every subscribe answered before (read-your-writes).
      const current = await countActiveSubscriptions(deps.webhooks, companyId);
      if (current >= deps.maxSubscriptionsPerCompany) throw subscriptionLimitReached(deps.maxSubscriptionsPerCompany, current);
      const created = await subscribeWebhook(deps.commands, {
        companyId,
        event,
        targetUrl: checked.url.href,
        filters,
        secret: newSecret(),
        metadata: apiMetadata(ctx.state),
      });
      await afterWrite(ctx, deps.progress, created.position, deps.readYourWritesTimeoutMs);
      return created;
    });
    ctx.status = 201;
    ctx.body = {
      success: true,
      data: {
        id: subscription.id,
        subscription_id: subscription.id,
        event: subscription.event,
        target_url: subscription.targetUrl,
        created_at: subscription.createdAt,
        secret,
      },
    };
  });

  const unsubscribe = async (ctx: Context, rawId: string): Promise<void> => {
    const { companyId } = authOf(ctx.state);
    if (!UUID.test(rawId)) throw subscriptionNotFound();
    const subscriptionId = rawId.toLowerCase();
    const result = await unsubscribeWebhook(deps.commands, { subscriptionId, companyId, reason: 'client', metadata: apiMetadata(ctx.state) });
    // Unknown, another company's, or already ended: there is no active subscription to remove.
    if (E.isLeft(result)) throw subscriptionNotFound();
    await afterWrite(ctx, deps.progress, result.right.position, deps.readYourWritesTimeoutMs);
    ctx.body = { success: true, message: `Unsubscribed: webhook subscription ${subscriptionId} receives no more deliveries.` };
  };

  router.post('/webhooks/:id/rotate-secret', requirePermission('webhooks:write'), async (ctx) => {
    const { companyId } = authOf(ctx.state);
    const rawId = ctx.params.id!;
    if (!UUID.test(rawId)) throw subscriptionNotFound();
    const input = validateRotate(ctx.request.body);
    if (E.isLeft(input)) throw toHttpError(input.left);
    const subscriptionId = rawId.toLowerCase();
    const rotated = await rotateWebhookSecret(deps.commands, {
      subscriptionId,
      companyId,
      overlapHours: input.right.overlapHours,
      secret: newSecret(),
      metadata: apiMetadata(ctx.state),
    });
    // Unknown, another company's, or ended: there is no active subscription to rotate.
    if (E.isLeft(rotated)) throw subscriptionNotFound();
    await afterWrite(ctx, deps.progress, rotated.right.position, deps.readYourWritesTimeoutMs);
    const { secret, previousSecretExpiresAt } = rotated.right;
    ctx.body = { success: true, data: { id: subscriptionId, secret, previousSecretExpiresAt } };
  });

  router.delete('/webhooks/unsubscribe', requirePermission('webhooks:write'), async (ctx) => {
    const input = validateUnsubscribe(ctx.request.body);
    if (E.isLeft(input)) throw toHttpError(input.left);
    await unsubscribe(ctx, input.right.subscriptionId);
  });

  router.delete('/webhooks/:id', requirePermission('webhooks:write'), async (ctx) => {
    await unsubscribe(ctx, ctx.params.id!);
  });

  return router;
};

/** `/webhooks`: REST-hook subscriptions, and each one's delivery log. */
export const webhooksResource = (catalogue: WebhookEventCatalogue): ApiResource => ({
  openapi: webhooksOpenApi(catalogue),
  routes: (api) => {
    const webhooks = api.readModels.collection(webhooksProjection);
    const { outbox, secrets, targetUrls, wake } = api.webhooks;
    return [
      webhookDeliveryRoutes({ webhooks, outbox, clock: api.commands.clock, ...(wake ? { wake } : {}) }),
      webhookStatusRoutes({ commands: api.commands, outbox, ...(wake ? { wake } : {}), ...api.readYourWrites }),
      webhookRoutes({
        webhooks,
        commands: { ...api.commands, secrets },
        targetUrls,
        ...api.readYourWrites,
        idempotency: api.idempotency('POST /webhooks/subscribe', subscribeResponseCodec(secrets)),
        maxSubscriptionsPerCompany: api.webhooks.maxSubscriptionsPerCompany,
        catalogue,
      }),
    ];
  },
});
