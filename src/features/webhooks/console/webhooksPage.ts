import type { Delivery } from '../../../application/ports/WebhookOutbox.js';
import type { DeliveryLogPage, SubscriptionView } from '../application/subscriptionQueries.js';
import { formatTime } from '../../../console/html/format.js';
import { describedBy, problemOf } from '../../../console/html/formProblems.js';
import { html, type Html } from '../../../console/html/html.js';
import { consoleUrl, csrfField } from '../../../console/html/layout.js';
import { secretBox } from '../../../console/pages/secretBox.js';

/** What the subscribe form was sent with, and what was wrong with it. */
export interface SubscribeForm {
  readonly event: string;
  readonly targetUrl: string;
  readonly tags: string;
  readonly problems: Readonly<Record<string, string>>;
}

export const EMPTY_SUBSCRIBE_FORM: SubscribeForm = { event: 'contact.created', targetUrl: '', tags: '', problems: {} };

/** A subscription's state as the console names it: ended, or its delivery status (active, paused, disabled). */
export const subscriptionState = (subscription: SubscriptionView): string => (subscription.isActive ? subscription.deliveryStatus : 'ended');

/** The state, with since when a paused or disabled receiver has been failing. */
const stateText = (subscription: SubscriptionView): Html =>
  html`${subscriptionState(subscription)}${subscription.isActive && subscription.failingSince ? html`<br><span class="hint">failing since ${formatTime(subscription.failingSince)}</span>` : ''}`;

/** Enable: deliveries to a paused or disabled subscription go on at once, from its oldest pending event. */
const enableForm = (basePath: string, csrf: string, s: SubscriptionView): Html | '' =>
  s.isActive && s.deliveryStatus !== 'active'
    ? html`<form method="post" action="${consoleUrl(basePath, `/webhooks/${s.id}/enable`)}">
      ${csrfField(csrf)}
      <button type="submit" class="secondary" aria-label="${`Enable deliveries to ${s.targetUrl}`}">Enable</button>
    </form>`
    : '';

const filtersText = (subscription: SubscriptionView): string =>
  subscription.filters?.tags ? `contacts tagged ${subscription.filters.tags.join(', ')}` : 'none';

const subscriptionRow = (basePath: string, csrf: string, s: SubscriptionView): Html => html`<tr>
  <th scope="row"><a href="${consoleUrl(basePath, `/webhooks/${s.id}`)}">${s.event}</a></th>
  <td data-label="URL"><code>${s.targetUrl}</code></td>
  <td data-label="Filters">${filtersText(s)}</td>
  <td data-label="State" class="state-${subscriptionState(s)}">${stateText(s)}</td>
  <td data-label="Created">${formatTime(s.createdAt)}</td>
  <td class="row-actions">
    <a href="${consoleUrl(basePath, `/webhooks/${s.id}`)}" aria-label="${`Delivery log of ${s.event} to ${s.targetUrl}`}">Deliveries</a>
    ${enableForm(basePath, csrf, s)}
    ${
      s.isActive
        ? html`<form method="post" action="${consoleUrl(basePath, `/webhooks/${s.id}/unsubscribe`)}" data-confirm="${`Unsubscribe ${s.targetUrl} from ${s.event}? It receives nothing more.`}">
      ${csrfField(csrf)}
      <button type="submit" class="danger" aria-label="${`Unsubscribe ${s.targetUrl} from ${s.event}`}">Unsubscribe</button>
    </form>`
        : ''
    }
  </td>
</tr>`;

/** The webhooks page: every subscription of the company, and the subscribe form as sent (empty at first). */
export interface WebhooksPageView {
  readonly basePath: string;
  readonly csrf: string;
  /** The event types a subscription may listen to, in the catalogue's order. */
  readonly eventTypes: readonly string[];
  readonly subscriptions: readonly SubscriptionView[];
  readonly form: SubscribeForm;
}

/** The webhooks page: every subscription of the company, and the subscribe form. */
export const webhooksBody = (spec: WebhooksPageView): Html => {
  const { form } = spec;
  return html`<h1>Webhooks</h1>
<section class="panel" aria-labelledby="subscriptions-title">
  <h2 id="subscriptions-title">Subscriptions</h2>
  ${
    spec.subscriptions.length === 0
      ? html`<p>No subscription yet.</p>`
      : html`<div class="table-box"><table class="cards">
    <thead><tr><th scope="col">Event</th><th scope="col">URL</th><th scope="col">Filters</th><th scope="col">State</th><th scope="col">Created</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
    <tbody>${spec.subscriptions.map((s) => subscriptionRow(spec.basePath, spec.csrf, s))}</tbody>
  </table></div>`
  }
</section>
<section class="panel" aria-labelledby="subscribe-title">
  <h2 id="subscribe-title">Subscribe an endpoint</h2>
  <form method="post" action="${consoleUrl(spec.basePath, '/webhooks')}" class="stack" novalidate>
    ${csrfField(spec.csrf)}
    <div>
      <label for="subscribe-event">Event</label>
      <select id="subscribe-event" name="event"${describedBy(form, 'event')}>
        ${spec.eventTypes.map((type) => html`<option value="${type}"${form.event === type ? html` selected` : ''}>${type}</option>`)}
      </select>
      ${problemOf(form, 'event')}
    </div>
    <div>
      <label for="subscribe-url">Endpoint URL</label>
      <input type="url" id="subscribe-url" name="target_url" value="${form.targetUrl}" placeholder="https://example.com/webhooks" required${describedBy(form, 'target_url')}>
      ${problemOf(form, 'target_url')}
    </div>
    <div>
      <label for="subscribe-tags">Only contacts with these tags (optional)</label>
      <input type="text" id="subscribe-tags" name="tags" value="${form.tags}" aria-describedby="subscribe-tags-hint"${form.problems.filters ? html` aria-invalid="true"` : ''}>
      <p class="hint" id="subscribe-tags-hint">Comma-separated; for contact events only.</p>
      ${problemOf(form, 'filters')}
    </div>
    <div><button type="submit">Subscribe</button></div>
  </form>
</section>`;
};

/** The page after subscribing: the subscription, and its signing secret (shown once). */
export interface SubscribedPageView {
  readonly basePath: string;
  readonly subscription: SubscriptionView;
  readonly secret: string;
}

/** The page after subscribing: the signing secret, once. */
export const subscribedBody = ({ basePath, subscription, secret }: SubscribedPageView): Html => html`<h1>Endpoint subscribed</h1>
<section class="panel" aria-labelledby="subscribed-title">
  <h2 id="subscribed-title">${subscription.event} to <code>${subscription.targetUrl}</code></h2>
  ${secretBox('signing-secret', 'Signing secret', secret, 'Shown only now: use it to check the signature of every delivery. Store it safely before you leave this page.')}
  <p><a href="${consoleUrl(basePath, `/webhooks/${subscription.id}`)}">Its delivery log</a> · <a href="${consoleUrl(basePath, '/webhooks')}">Back to the webhooks</a></p>
</section>`;

const lastAttempt = (delivery: Delivery) => delivery.attempts[delivery.attempts.length - 1] ?? null;

const deliveryRow = (basePath: string, csrf: string, subscription: SubscriptionView, d: Delivery): Html => {
  const last = lastAttempt(d);
  return html`<tr>
  <th scope="row">${d.eventType}<br><code class="hint">${d.eventId}</code></th>
  <td data-label="Occurred">${formatTime(d.occurredAt)}</td>
  <td data-label="Attempts">${d.attempts.length}</td>
  <td data-label="Status code">${last ? (last.statusCode ?? html`<span class="bad">${last.error ?? 'no response'}</span>`) : '—'}</td>
  <td data-label="Duration">${last ? `${Math.round(last.latencyMs)} ms` : '—'}</td>
  <td data-label="Last attempt">${last ? formatTime(last.at) : '—'}</td>
  <td data-label="State" class="state-${d.state}">${d.state}${d.failureReason ? html`<br><span class="hint">${d.failureReason.replace('_', ' ')}</span>` : ''}</td>
  <td>${
    subscription.isActive && d.state !== 'pending'
      ? html`<form method="post" action="${consoleUrl(basePath, `/webhooks/${subscription.id}/redeliver`)}">
      ${csrfField(csrf)}
      <input type="hidden" name="eventId" value="${d.eventId}">
      <button type="submit" class="secondary" aria-label="${`Redeliver ${d.eventType} ${d.eventId}`}">Redeliver</button>
    </form>`
      : ''
  }</td>
</tr>`;
};

/** One subscription's page: the subscription, and a page of its delivery log. */
export interface SubscriptionPageView extends DeliveryLogPage {
  readonly basePath: string;
  readonly csrf: string;
  readonly subscription: SubscriptionView;
}

/** One subscription: what it is, its delivery log (newest first), and redelivery and test buttons. */
export const subscriptionBody = (spec: SubscriptionPageView): Html => {
  const { subscription: s, basePath, csrf } = spec;
  const here = (page: number) => consoleUrl(basePath, `/webhooks/${s.id}?page=${page}`);
  return html`<h1>${s.event} to <code>${s.targetUrl}</code></h1>
<section class="panel" aria-labelledby="subscription-title">
  <h2 id="subscription-title">Subscription</h2>
  <dl class="record">
    <dt>Id</dt><dd><code>${s.id}</code></dd>
    <dt>State</dt><dd class="state-${subscriptionState(s)}">${stateText(s)}</dd>
    <dt>Filters</dt><dd>${filtersText(s)}</dd>
    <dt>Created</dt><dd>${formatTime(s.createdAt)}</dd>
  </dl>
  ${
    s.isActive
      ? html`<div class="row-actions">
    ${enableForm(basePath, csrf, s)}
    <form method="post" action="${consoleUrl(basePath, `/webhooks/${s.id}/test`)}">
      ${csrfField(csrf)}
      <button type="submit" class="secondary">Send a test event</button>
    </form>
  </div>
  <form method="post" action="${consoleUrl(basePath, `/webhooks/${s.id}/redeliver`)}" class="stack">
    ${csrfField(csrf)}
    <div>
      <label for="failed-since">Redeliver every failed delivery of events since (UTC)</label>
      <input type="datetime-local" id="failed-since" name="failedSince" required>
    </div>
    <div><button type="submit" class="secondary">Redeliver failed</button></div>
  </form>`
      : html`<p>This subscription has ended: nothing is sent to it any more.</p>`
  }
</section>
<section class="panel" aria-labelledby="deliveries-title">
  <h2 id="deliveries-title">Delivery log</h2>
  ${
    spec.deliveries.length === 0
      ? html`<p>No delivery yet.</p>`
      : html`<div class="table-box"><table class="cards">
    <thead><tr><th scope="col">Event</th><th scope="col">Occurred</th><th scope="col">Attempts</th><th scope="col">Status code</th><th scope="col">Duration</th><th scope="col">Last attempt</th><th scope="col">State</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
    <tbody>${spec.deliveries.map((d) => deliveryRow(basePath, csrf, s, d))}</tbody>
  </table></div>`
  }
  <nav class="pager" aria-label="Delivery log pages">
    ${spec.page > 1 ? html`<a href="${here(spec.page - 1)}">Newer</a>` : ''}
    ${spec.hasMore ? html`<a href="${here(spec.page + 1)}">Older</a>` : ''}
  </nav>
</section>`;
};
