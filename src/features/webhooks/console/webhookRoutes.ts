import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import { changeDeliveryStatus } from '../application/changeDeliveryStatus.js';
import { redeliverWebhook, type Redelivery } from '../application/redeliverWebhook.js';
import { subscribeWebhook } from '../application/subscribeWebhook.js';
import { unsubscribeWebhook } from '../application/unsubscribeWebhook.js';
import { validateSubscribe } from '../domain/subscriptionInput.js';
import type { InputProblem } from '../../../shared/InputProblem.js';
import { KeyedLock } from '../../../shared/keyedLock.js';
import { generateWebhookSecret } from '../../../shared/webhookSecret.js';
import { sendTestEvent } from '../application/sendTestEvent.js';
import { checkTargetUrl } from '../../../webhooks/targetUrlGuard.js';
import { countActiveSubscriptions } from '../readModels/webhookQueries.js';
import { subscriptionOf, webhooksProjection, type WebhookDoc } from '../readModels/webhooksProjection.js';
import type { ConsoleDeps } from '../../../console/ConsoleDeps.js';
import { ConsolePageError } from '../../../console/ConsolePageError.js';
import { consoleUrl } from '../../../console/html/layout.js';
import { allDocuments } from '../../../console/pages/allDocuments.js';
import { confirmBody } from '../../../console/pages/confirmPage.js';
import { afterChange, consoleMetadata, csrfOf, redirectTo, renderPage } from '../../../console/pages/render.js';
import { EMPTY_SUBSCRIBE_FORM, subscribedBody, subscriptionBody, webhooksBody, type SubscribeForm } from './webhooksPage.js';
import { field, readForm, utcDateTimeField } from '../../../console/session/formBody.js';
import { signedInOf } from '../../../console/session/requireSession.js';

const DELIVERIES_PER_PAGE = 50;
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
 * `changeDeliveryStatus`.
 */
export const webhookRoutes = (deps: ConsoleDeps): Router => {
  const router = new Router();
  const webhooks = deps.readModels.collection(webhooksProjection);
  const commands = { ...deps.commands, secrets: deps.webhooks.secrets };
  const companyLock = new KeyedLock();

  /** The company's subscription by id (ended ones too); another company's is as unknown. */
  const ownSubscription = async (ctx: Context): Promise<WebhookDoc> => {
    const id = String(ctx.params.id ?? '').toLowerCase();
    const doc = UUID.test(id) ? await webhooks.get(signedInOf(ctx).session.companyId, id) : null;
    if (!doc) throw new ConsolePageError(404, 'This subscription is not one of yours', 'It may belong to another company, or not exist at all.');
    return doc;
  };

  const webhooksPage = async (ctx: Context, form: SubscribeForm, status = 200) => {
    const docs = await allDocuments(webhooks, signedInOf(ctx).session.companyId);
    renderPage(ctx, deps, {
      title: 'Webhooks',
      section: 'webhooks',
      status,
      notice: noticeOf(ctx),
      body: webhooksBody({ basePath: deps.basePath, csrf: csrfOf(ctx), subscriptions: docs.map(subscriptionOf), form }),
    });
  };

  router.get('/console/webhooks', (ctx) => webhooksPage(ctx, EMPTY_SUBSCRIBE_FORM));

  router.post('/console/webhooks', async (ctx) => {
    const form = await readForm(ctx);
    const sent: SubscribeForm = { event: field(form, 'event'), targetUrl: field(form, 'target_url'), tags: field(form, 'tags'), problems: {} };
    const tags = sent.tags.split(',').map((tag) => tag.trim()).filter((tag) => tag !== '');
    const fields = validateSubscribe({ event: sent.event, target_url: sent.targetUrl, ...(tags.length > 0 ? { filters: { tags } } : {}) });
    if (E.isLeft(fields)) return webhooksPage(ctx, { ...sent, problems: problemsOf(fields.left) }, 422);
    const checked = await checkTargetUrl(fields.right.targetUrl, deps.webhooks.targetUrls);
    if (!checked.ok) return webhooksPage(ctx, { ...sent, problems: { target_url: `The URL ${checked.reason}.` } }, 422);
    const { companyId } = signedInOf(ctx).session;
    // The API's cap, counted as the API counts it (one subscribe of a company at a time in this process).
    const created = await companyLock.run(companyId, async () => {
      const current = await countActiveSubscriptions(webhooks, companyId);
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
    renderPage(ctx, deps, { title: 'Endpoint subscribed', section: 'webhooks', status: 201, body: subscribedBody(deps.basePath, subscription, secret) });
  });

  router.post('/console/webhooks/:id/unsubscribe', async (ctx) => {
    const doc = await ownSubscription(ctx);
    const s = subscriptionOf(doc);
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
    const ended = await unsubscribeWebhook(commands, { subscriptionId: s.id, companyId: doc.companyId, reason: 'client', metadata: consoleMetadata(ctx) });
    // Ended already (another tab, a 410 from the receiver): it is ended all the same.
    if (E.isRight(ended)) await afterChange(deps, ended.right.position);
    redirectTo(ctx, deps, '/webhooks?done=unsubscribed');
  });

  router.get('/console/webhooks/:id', async (ctx) => {
    const doc = await ownSubscription(ctx);
    const page = Math.max(1, Math.min(1000, Number.parseInt(String(ctx.query.page ?? '1'), 10) || 1));
    const deliveries = await deps.webhooks.outbox.listDeliveries(doc.id, { page, limit: DELIVERIES_PER_PAGE });
    renderPage(ctx, deps, {
      title: 'Delivery log',
      section: 'webhooks',
      notice: noticeOf(ctx),
      body: subscriptionBody({
        basePath: deps.basePath,
        csrf: csrfOf(ctx),
        subscription: subscriptionOf(doc),
        deliveries: deliveries.items,
        page,
        hasMore: page * DELIVERIES_PER_PAGE < deliveries.total,
      }),
    });
  });

  router.post('/console/webhooks/:id/redeliver', async (ctx) => {
    const doc = await ownSubscription(ctx);
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
      { subscriptionId: doc.id, active: doc.subscription.isActive, redelivery },
    );
    if (E.isLeft(result)) {
      if (result.left === 'not_found') throw new ConsolePageError(404, 'No such delivery', 'This subscription has no delivery of this event.');
      throw new ConsolePageError(409, 'This subscription has ended', 'Nothing is sent to an ended subscription.');
    }
    const done = 'eventId' in redelivery && result.right.requeued === 0 ? 'queued' : `requeued-${result.right.requeued}`;
    redirectTo(ctx, deps, `/webhooks/${doc.id}?done=${done}`);
  });

  router.post('/console/webhooks/:id/enable', async (ctx) => {
    const doc = await ownSubscription(ctx);
    const changed = await changeDeliveryStatus(deps.commands, {
      subscriptionId: doc.id,
      companyId: doc.companyId,
      change: { to: 'active', reason: 'client' },
      metadata: consoleMetadata(ctx),
    });
    if (E.isLeft(changed)) throw new ConsolePageError(409, 'This subscription has ended', 'An ended subscription cannot be enabled.');
    await deps.webhooks.outbox.enableDelivery(doc.id);
    deps.webhooks.wake?.();
    await afterChange(deps, changed.right.position);
    redirectTo(ctx, deps, `/webhooks/${doc.id}?done=enabled`);
  });

  router.post('/console/webhooks/:id/test', async (ctx) => {
    const doc = await ownSubscription(ctx);
    if (!doc.subscription.isActive) throw new ConsolePageError(409, 'This subscription has ended', 'Nothing is sent to an ended subscription.');
    const { outbox, wake } = deps.webhooks;
    await sendTestEvent(
      { outbox, eventStore: deps.commands.eventStore, newId: deps.commands.newId, clock: deps.commands.clock, ...(wake ? { wake } : {}) },
      { id: doc.id, companyId: doc.companyId, event: doc.subscription.event },
    );
    redirectTo(ctx, deps, `/webhooks/${doc.id}?done=test`);
  });

  return router;
};
