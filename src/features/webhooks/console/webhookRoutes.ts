import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import { changeDeliveryStatus } from '../application/changeDeliveryStatus.js';
import { redeliverWebhook, type Redelivery } from '../application/redeliverWebhook.js';
import { validateSubscribe } from '../application/subscribeInput.js';
import { subscribeWebhook } from '../application/subscribeWebhook.js';
import { deliveryLogPage, type OwnSubscription, type SubscriptionQueriesOf } from '../application/subscriptionQueries.js';
import { unsubscribeWebhook } from '../application/unsubscribeWebhook.js';
import type { WebhookEventCatalogue } from '../../webhookEvents/index.js';
import type { InputProblem } from '../../../shared/InputProblem.js';
import { KeyedLock } from '../../../shared/keyedLock.js';
import { generateWebhookSecret } from '../../../shared/webhookSecret.js';
import { sendTestEvent } from '../application/sendTestEvent.js';
import { checkTargetUrl } from '../../../webhooks/targetUrlGuard.js';
import type { ConsoleDeps } from '../../../console/ConsoleDeps.js';
import { ConsolePageError } from '../../../console/ConsolePageError.js';
import { consoleUrl } from '../../../console/html/layout.js';
import { confirmBody } from '../../../console/pages/confirmPage.js';
import { afterChange, consoleMetadata, csrfOf, redirectTo, renderPage } from '../../../console/pages/render.js';
import {
  EMPTY_SUBSCRIBE_FORM,
  deliveryBody,
  rotatedBody,
  subscribedBody,
  subscriptionBody,
  webhooksBody,
  type SubscribeForm,
  type SubscriptionPageView,
  type WebhooksPageView,
} from './webhooksPage.js';
import { successRates } from '../application/deliveryStats.js';
import { rotateWebhookSecret } from '../application/rotateWebhookSecret.js';
import { validateRotate } from '../application/rotateInput.js';
import { field, readForm, utcDateTimeField } from '../../../console/session/formBody.js';
import { signedInOf } from '../../../console/session/requireSession.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const NOTICES: Readonly<Record<string, string>> = {
  unsubscribed: 'Unsubscribed: the endpoint receives nothing more.',
  test: 'A test event is on its way; it shows in the log below.',
  queued: 'Nothing to redeliver: it is queued already.',
  enabled: 'Enabled: its pending deliveries go out again, oldest first.',
};

/** The notice of a page after a change: a fixed text by its code, or how many deliveries were queued again. */
const noticeOf = (ctx: Context): string | null => {
  const done = typeof ctx.query.done === 'string' ? ctx.query.done : '';
  const requeued = /^requeued-(\d{1,9})$/.exec(done);
  if (requeued) return requeued[1] === '0' ? 'No failed delivery of events since then.' : `Queued ${requeued[1]} deliveries again.`;
  return NOTICES[done] ?? null;
};

/** A problem of the subscribe form, per field of the form. */
const problemsOf = (problem: InputProblem): Record<string, string> =>
  problem.kind === 'MissingFields'
    ? Object.fromEntries(problem.fields.map((name) => [name, 'Required.']))
    : Object.fromEntries(Object.entries(problem.details).map(([name, message]) => [name === '(body)' ? 'target_url' : name.split('.')[0]!, String(message)]));

/**
 * Webhooks: the subscriptions with the subscribe form; subscribe (the signing
 * secret shown once) and unsubscribe (after a confirmation); each one's
 * delivery log, redelivery of one event or of every failure since a time, a
 * test event, and enabling a subscription the dispatcher paused or disabled.
 * Through the same functions as the API: `subscribeWebhook` after the same
 * validation, target-URL guard and cap, `unsubscribeWebhook`, `redeliverWebhook`,
 * `changeDeliveryStatus`. The company's subscriptions are read through the
 * queries `queriesOf` gives over the read models (the feature's index.ts hands
 * over `subscriptionQueriesOf`), a delivery log through `deliveryLogPage`.
 */
export const webhookRoutes = (catalogue: WebhookEventCatalogue, queriesOf: SubscriptionQueriesOf) => (deps: ConsoleDeps): Router => {
  const router = new Router();
  const subscriptions = queriesOf(deps.readModels);
  const commands = { ...deps.commands, secrets: deps.webhooks.secrets };
  const companyLock = new KeyedLock();

  /** The company's subscription by id (ended ones too); another company's is as unknown. */
  const ownSubscription = async (ctx: Context): Promise<OwnSubscription> => {
    const id = String(ctx.params.id ?? '').toLowerCase();
    const own = UUID.test(id) ? await subscriptions.subscriptionOf(signedInOf(ctx).session.companyId, id) : null;
    if (!own) throw new ConsolePageError(404, 'This subscription is not one of yours', 'It may belong to another company, or not exist at all.');
    return own;
  };

  /** The webhooks page's view model: every subscription of the company (ended ones too), and the form. */
  const webhooksPageView = async (ctx: Context, form: SubscribeForm): Promise<WebhooksPageView> => {
    const companySubscriptions = await subscriptions.subscriptionsOf(signedInOf(ctx).session.companyId);
    return { basePath: deps.basePath, csrf: csrfOf(ctx), eventTypes: catalogue.types, subscriptions: companySubscriptions, form };
  };

  const webhooksPage = async (ctx: Context, form: SubscribeForm, status = 200) => {
    const view = await webhooksPageView(ctx, form);
    renderPage(ctx, deps, { title: 'Webhooks', section: 'webhooks', status, notice: noticeOf(ctx), body: webhooksBody(view) });
  };

  router.get('/console/webhooks', (ctx) => webhooksPage(ctx, EMPTY_SUBSCRIBE_FORM));

  router.post('/console/webhooks', async (ctx) => {
    const form = await readForm(ctx);
    const sent: SubscribeForm = { event: field(form, 'event'), targetUrl: field(form, 'target_url'), tags: field(form, 'tags'), problems: {} };
    const tags = sent.tags.split(',').map((tag) => tag.trim()).filter((tag) => tag !== '');
    const fields = validateSubscribe({ event: sent.event, target_url: sent.targetUrl, ...(tags.length > 0 ? { filters: { tags } } : {}) }, catalogue);
    if (E.isLeft(fields)) return webhooksPage(ctx, { ...sent, problems: problemsOf(fields.left) }, 422);
    const checked = await checkTargetUrl(fields.right.targetUrl, deps.webhooks.targetUrls);
    if (!checked.ok) return webhooksPage(ctx, { ...sent, problems: { target_url: `The URL ${checked.reason}.` } }, 422);
    const { companyId } = signedInOf(ctx).session;
    // The API's cap, counted as the API counts it (one subscribe of a company at a time in this process).
    const created = await companyLock.run(companyId, async () => {
      const current = await subscriptions.countActive(companyId);
      if (current >= deps.webhooks.maxSubscriptionsPerCompany) return null;
      const made = await subscribeWebhook(commands, {
        companyId,
        event: fields.right.event,
        targetUrl: checked.url.href,
        filters: fields.right.filters,
        secret: generateWebhookSecret(),
        metadata: consoleMetadata(ctx),
      });
      await afterChange(deps, made.position);
      return made;
    });
    if (!created) {
      const limit = deps.webhooks.maxSubscriptionsPerCompany;
      return webhooksPage(ctx, { ...sent, problems: { target_url: `Your company has ${limit} subscriptions, the most it may have: unsubscribe one first.` } }, 409);
    }
    const { subscription, secret } = created;
    renderPage(ctx, deps, { title: 'Endpoint subscribed', section: 'webhooks', status: 201, body: subscribedBody({ basePath: deps.basePath, subscription, secret }) });
  });

  router.post('/console/webhooks/:id/unsubscribe', async (ctx) => {
    const { companyId, subscription: s } = await ownSubscription(ctx);
    const form = await readForm(ctx);
    if (field(form, 'confirmed') !== 'yes') {
      return renderPage(ctx, deps, {
        title: 'Unsubscribe this endpoint?',
        section: 'webhooks',
        body: confirmBody({
          question: `Unsubscribe ${s.targetUrl} from ${s.event}?`,
          detail: 'It receives nothing more, and deliveries still waiting are not sent. This cannot be undone (subscribe it again for new events).',
          action: consoleUrl(deps.basePath, `/webhooks/${s.id}/unsubscribe`),
          csrf: csrfOf(ctx),
          confirmLabel: 'Unsubscribe',
          cancelHref: consoleUrl(deps.basePath, '/webhooks'),
        }),
      });
    }
    const ended = await unsubscribeWebhook(commands, { subscriptionId: s.id, companyId, reason: 'client', metadata: consoleMetadata(ctx) });
    // Ended already (another tab, a 410 from the receiver): it is ended all the same.
    if (E.isRight(ended)) await afterChange(deps, ended.right.position);
    redirectTo(ctx, deps, '/webhooks?done=unsubscribed');
  });

  router.get('/console/webhooks/:id', async (ctx) => {
    const own = await ownSubscription(ctx);
    const page = Math.max(1, Math.min(1000, Number.parseInt(String(ctx.query.page ?? '1'), 10) || 1));
    const view: SubscriptionPageView = {
      basePath: deps.basePath,
      csrf: csrfOf(ctx),
      subscription: own.subscription,
      ...(await deliveryLogPage(deps.webhooks.outbox, own.id, page)),
      rates: await successRates(deps.webhooks.outbox, own.id, deps.commands.clock.now()),
    };
    renderPage(ctx, deps, { title: 'Delivery log', section: 'webhooks', notice: noticeOf(ctx), body: subscriptionBody(view) });
  });

  router.get('/console/webhooks/:id/deliveries/:eventId', async (ctx) => {
    const own = await ownSubscription(ctx);
    const delivery = await deps.webhooks.outbox.get(own.id, String(ctx.params.eventId ?? ''));
    if (!delivery) throw new ConsolePageError(404, 'No such delivery', 'This subscription has no delivery of this event (the log may have pruned it).');
    renderPage(ctx, deps, {
      title: 'Delivery',
      section: 'webhooks',
      notice: noticeOf(ctx),
      body: deliveryBody({ basePath: deps.basePath, csrf: csrfOf(ctx), subscription: own.subscription, delivery }),
    });
  });

  router.post('/console/webhooks/:id/rotate-secret', async (ctx) => {
    const own = await ownSubscription(ctx);
    const s = own.subscription;
    if (!s.isActive) throw new ConsolePageError(409, 'This subscription has ended', 'An ended subscription has no secret to rotate.');
    const form = await readForm(ctx);
    const sent = field(form, 'overlapHours');
    const input = validateRotate(sent === '' ? {} : { overlapHours: /^\d{1,3}$/.test(sent) ? Number(sent) : sent });
    if (E.isLeft(input)) throw new ConsolePageError(422, 'Choose an overlap', 'The previous secret may keep signing for 0 to 168 hours.');
    const { overlapHours } = input.right;
    if (field(form, 'confirmed') !== 'yes') {
      return renderPage(ctx, deps, {
        title: 'Rotate the signing secret?',
        section: 'webhooks',
        body: confirmBody({
          question: `Rotate the signing secret of ${s.targetUrl}?`,
          detail:
            overlapHours === 0
              ? 'A new secret signs every delivery from now on, and the current one stops at once. The new secret is shown once.'
              : `A new secret signs every delivery from now on; the current one signs them too for ${overlapHours} ${overlapHours === 1 ? 'hour' : 'hours'}. The new secret is shown once.`,
          action: consoleUrl(deps.basePath, `/webhooks/${s.id}/rotate-secret`),
          csrf: csrfOf(ctx),
          confirmLabel: 'Rotate',
          cancelHref: consoleUrl(deps.basePath, `/webhooks/${s.id}`),
          fields: { overlapHours: String(overlapHours) },
        }),
      });
    }
    const rotated = await rotateWebhookSecret(commands, {
      subscriptionId: own.id,
      companyId: own.companyId,
      overlapHours,
      secret: generateWebhookSecret(),
      metadata: consoleMetadata(ctx),
    });
    if (E.isLeft(rotated)) throw new ConsolePageError(409, 'This subscription has ended', 'An ended subscription has no secret to rotate.');
    await afterChange(deps, rotated.right.position);
    const { secret, previousSecretExpiresAt } = rotated.right;
    renderPage(ctx, deps, {
      title: 'Signing secret rotated',
      section: 'webhooks',
      body: rotatedBody({ basePath: deps.basePath, subscription: s, secret, previousSecretExpiresAt, overlapHours }),
    });
  });

  router.post('/console/webhooks/:id/redeliver', async (ctx) => {
    const own = await ownSubscription(ctx);
    const form = await readForm(ctx);
    const eventId = field(form, 'eventId');
    let redelivery: Redelivery;
    if (eventId !== '') redelivery = { eventId };
    else {
      const since = utcDateTimeField(field(form, 'failedSince'));
      if (!since) throw new ConsolePageError(422, 'Give a time', 'Choose the date and time from which failed deliveries are sent again.');
      redelivery = { failedSince: since };
    }
    const { outbox, wake } = deps.webhooks;
    const result = await redeliverWebhook(
      { outbox, clock: deps.commands.clock, ...(wake ? { wake } : {}) },
      { subscriptionId: own.id, active: own.subscription.isActive, redelivery },
    );
    if (E.isLeft(result)) {
      if (result.left === 'not_found') throw new ConsolePageError(404, 'No such delivery', 'This subscription has no delivery of this event.');
      throw new ConsolePageError(409, 'This subscription has ended', 'Nothing is sent to an ended subscription.');
    }
    const done = 'eventId' in redelivery && result.right.requeued === 0 ? 'queued' : `requeued-${result.right.requeued}`;
    redirectTo(ctx, deps, `/webhooks/${own.id}?done=${done}`);
  });

  router.post('/console/webhooks/:id/enable', async (ctx) => {
    const own = await ownSubscription(ctx);
    const changed = await changeDeliveryStatus(deps.commands, {
      subscriptionId: own.id,
      companyId: own.companyId,
      change: { to: 'active', reason: 'client' },
      metadata: consoleMetadata(ctx),
    });
    if (E.isLeft(changed)) throw new ConsolePageError(409, 'This subscription has ended', 'An ended subscription cannot be enabled.');
    await deps.webhooks.outbox.enableDelivery(own.id);
    deps.webhooks.wake?.();
    await afterChange(deps, changed.right.position);
    redirectTo(ctx, deps, `/webhooks/${own.id}?done=enabled`);
  });

  router.post('/console/webhooks/:id/test', async (ctx) => {
    const own = await ownSubscription(ctx);
    if (!own.subscription.isActive) throw new ConsolePageError(409, 'This subscription has ended', 'Nothing is sent to an ended subscription.');
    const { outbox, wake } = deps.webhooks;
    await sendTestEvent(
      { outbox, eventStore: deps.commands.eventStore, newId: deps.commands.newId, clock: deps.commands.clock, samples: catalogue, ...(wake ? { wake } : {}) },
      { id: own.id, companyId: own.companyId, event: own.subscription.event },
    );
    redirectTo(ctx, deps, `/webhooks/${own.id}?done=test`);
  });

  return router;
};
