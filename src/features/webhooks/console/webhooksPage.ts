import type { Delivery } from '../../../application/ports/WebhookOutbox.js';
import type { DeliveryLogPage, SubscriptionView } from '../application/subscriptionQueries.js';
import { attemptDetail, isTestDelivery, type AttemptDetail } from '../application/deliveryViews.js';
import { CHART_DELIVERIES, type SuccessRates } from '../application/deliveryStats.js';
import { DEFAULT_OVERLAP_HOURS } from '../application/rotateInput.js';
import { successRateChart } from './successRateChart.js';
import { formatTime } from '../../../console/html/format.js';
import { describedBy, problemOf } from '../../../console/html/formProblems.js';
import { html, type Html } from '../../../console/html/html.js';
import { consoleUrl, csrfField } from '../../../console/html/layout.js';
import { secretBox } from '../../../console/pages/secretBox.js';
import { tableBox } from '../../../console/html/tableBox.js';

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
    <a href="${consoleUrl(basePath, `/webhooks/${s.id}`)}" aria-label="${`Deliveries of ${s.event} to ${s.targetUrl}`}">Deliveries</a>
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
      : tableBox(
          'Subscriptions',
          html`<table class="cards">
    <thead><tr><th scope="col">Event</th><th scope="col">URL</th><th scope="col">Filters</th><th scope="col">State</th><th scope="col">Created</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
    <tbody>${spec.subscriptions.map((s) => subscriptionRow(spec.basePath, spec.csrf, s))}</tbody>
  </table>`,
        )
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

/** The badge of a test delivery (sent from the console, not a change of any record). */
const testBadge = (d: Delivery): Html | '' => (isTestDelivery(d) ? html` <span class="badge">test</span>` : '');

/** Where a delivery's attempts are shown in full. */
const deliveryHref = (basePath: string, subscriptionId: string, eventId: string): string =>
  consoleUrl(basePath, `/webhooks/${subscriptionId}/deliveries/${encodeURIComponent(eventId)}`);

const deliveryRow = (basePath: string, csrf: string, subscription: SubscriptionView, d: Delivery): Html => {
  const last = lastAttempt(d);
  return html`<tr>
  <th scope="row"><a href="${deliveryHref(basePath, subscription.id, d.eventId)}" aria-label="${`Attempts of ${d.eventType} ${d.eventId}`}">${d.eventType}</a>${testBadge(d)}<br><code class="hint">${d.eventId}</code></th>
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

/** One subscription's page: the subscription, its success rates, and a page of its delivery log. */
export interface SubscriptionPageView extends DeliveryLogPage {
  readonly basePath: string;
  readonly csrf: string;
  readonly subscription: SubscriptionView;
  readonly rates: SuccessRates;
}

/** The overlaps the console offers for a rotation (hours), the default first. */
const OVERLAPS: readonly (readonly [number, string])[] = [
  [DEFAULT_OVERLAP_HOURS, '24 hours'],
  [1, '1 hour'],
  [72, '3 days'],
  [168, '7 days'],
  [0, 'No overlap: stop it now (a leaked secret)'],
];

/** Rotate: a new signing secret, the previous one signing too for the overlap chosen. */
const rotateForm = (basePath: string, csrf: string, s: SubscriptionView): Html => html`<form method="post" action="${consoleUrl(basePath, `/webhooks/${s.id}/rotate-secret`)}" class="stack" data-confirm="${`Rotate the signing secret of ${s.targetUrl}? The new secret is shown once.`}">
    ${csrfField(csrf)}
    <div>
      <label for="rotate-overlap">Keep the previous secret signing for</label>
      <select id="rotate-overlap" name="overlapHours" aria-describedby="rotate-overlap-hint">
        ${OVERLAPS.map(([hours, label]) => html`<option value="${String(hours)}">${label}</option>`)}
      </select>
      <p class="hint" id="rotate-overlap-hint">Until then every delivery carries two signatures, one per secret, so your receiver can move to the new secret without missing one.</p>
    </div>
    <div><button type="submit" class="secondary">Rotate the signing secret</button></div>
  </form>`;

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
  </form>
  <h3>Signing secret</h3>
  ${rotateForm(basePath, csrf, s)}`
      : html`<p>This subscription has ended: nothing is sent to it any more.</p>`
  }
</section>
<section class="panel" aria-labelledby="rates-title">
  <h2 id="rates-title">Success rate</h2>
  <p class="hint">The share of delivery attempts the endpoint answered with 200${spec.rates.capped ? `, counted over its most recent ${CHART_DELIVERIES} deliveries` : ''}.</p>
  <h3>Last 24 hours</h3>
  ${successRateChart(spec.rates.day, 'rate-day')}
  <h3>Last 7 days</h3>
  ${successRateChart(spec.rates.week, 'rate-week')}
</section>
<section class="panel" aria-labelledby="deliveries-title">
  <h2 id="deliveries-title">Delivery log</h2>
  ${
    spec.deliveries.length === 0
      ? html`<p>No delivery yet.</p>`
      : tableBox(
          'Delivery log',
          html`<table class="cards">
    <thead><tr><th scope="col">Event</th><th scope="col">Occurred</th><th scope="col">Attempts</th><th scope="col">Status code</th><th scope="col">Duration</th><th scope="col">Last attempt</th><th scope="col">State</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
    <tbody>${spec.deliveries.map((d) => deliveryRow(basePath, csrf, s, d))}</tbody>
  </table>`,
        )
  }
  <nav class="pager" aria-label="Delivery log pages">
    ${spec.page > 1 ? html`<a href="${here(spec.page - 1)}">Newer</a>` : ''}
    ${spec.hasMore ? html`<a href="${here(spec.page + 1)}">Older</a>` : ''}
  </nav>
</section>`;
};

/** The page after a rotation: the new secret, once, and when the previous one stops signing. */
export interface RotatedPageView {
  readonly basePath: string;
  readonly subscription: SubscriptionView;
  readonly secret: string;
  readonly previousSecretExpiresAt: string;
  readonly overlapHours: number;
}

/** The page after a rotation: the new signing secret, once. */
export const rotatedBody = ({ basePath, subscription, secret, previousSecretExpiresAt, overlapHours }: RotatedPageView): Html => html`<h1>Signing secret rotated</h1>
<section class="panel" aria-labelledby="rotated-title">
  <h2 id="rotated-title">${subscription.event} to <code>${subscription.targetUrl}</code></h2>
  ${secretBox('signing-secret', 'New signing secret', secret, 'Shown only now: store it safely before you leave this page, and check signatures with it.')}
  <p>${
    overlapHours === 0
      ? 'The previous secret signs nothing any more: every delivery carries the new signature only.'
      : html`Until <time datetime="${previousSecretExpiresAt}">${formatTime(previousSecretExpiresAt)}</time> every delivery carries two signatures in <code>webhook-signature</code>, the new secret's first, then the previous secret's; after that, the new one only.`
  }</p>
  <p><a href="${consoleUrl(basePath, `/webhooks/${subscription.id}`)}">Back to its delivery log</a></p>
</section>`;

/** The page of one delivery: every attempt in full. */
export interface DeliveryPageView {
  readonly basePath: string;
  readonly csrf: string;
  readonly subscription: SubscriptionView;
  readonly delivery: Delivery;
}

/**
 * Text as sent or received, in a box that scrolls when it is long: a named region in the tab order,
 * so that a keyboard can scroll it too.
 */
const textBox = (label: string, text: string): Html => html`<pre role="region" tabindex="0" aria-label="${label}">${text}</pre>`;

const headersList = (label: string, headers: Readonly<Record<string, string>>): Html =>
  Object.keys(headers).length === 0
    ? html`<p class="hint">No header.</p>`
    : textBox(
        label,
        Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}`)
          .join('\n'),
      );

/** A body as text, indented when it is JSON. */
const bodyText = (body: string): string => {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
};

const ERROR_KINDS: Readonly<Record<string, string>> = {
  timeout: 'Timed out',
  connection_refused: 'Connection refused',
  connection_reset: 'Connection closed before the response',
  dns: 'The host name has no address',
  tls: 'TLS failed',
  refused_address: 'A refused (private) address',
  invalid_target: 'Not an http(s) URL',
  no_secret: 'No signing secret',
  other: 'No response',
};

/** What an attempt came to, in a few words. */
const outcomeText = (a: AttemptDetail): string =>
  a.statusCode !== null ? `HTTP ${a.statusCode}` : ERROR_KINDS[a.errorKind ?? 'other'] ?? 'No response';

const attemptSection = (a: AttemptDetail, n: number, id: string): Html => html`<section class="attempt" aria-labelledby="${id}-title">
  <h3 id="${`${id}-title`}">Attempt ${String(n)}: <span class="${a.statusCode === 200 ? 'ok' : 'bad'}">${outcomeText(a)}</span></h3>
  <dl class="record">
    <dt>Started</dt><dd>${formatTime(a.at)}</dd>
    <dt>Duration</dt><dd>${`${Math.round(a.latencyMs)} ms`}</dd>
    ${a.error !== null ? html`<dt>Error</dt><dd class="bad">${a.error}</dd>` : ''}
  </dl>
  <details>
    <summary>${`Request of attempt ${n}`}</summary>
    ${
      a.request
        ? html`<p><code>POST ${a.request.url}</code></p>
    <h4>Headers</h4>
    ${headersList(`Request headers of attempt ${n}`, a.request.headers)}
    <h4>Body</h4>
    ${textBox(`Request body of attempt ${n}`, bodyText(a.request.body))}`
        : html`<p class="hint">Not kept: nothing was sent, or the attempt was made before requests were kept.</p>`
    }
  </details>
  <details${a.statusCode !== 200 ? html` open` : ''}>
    <summary>${`Response of attempt ${n}`}</summary>
    ${
      a.response
        ? a.response.erased
          ? html`<p>Status ${String(a.response.statusCode)}. Its headers and body were erased with the person this delivery was about.</p>`
          : html`<p>Status ${String(a.response.statusCode)}</p>
    <h4>Headers</h4>
    ${headersList(`Response headers of attempt ${n}`, a.response.headers)}
    <h4>Body${a.response.bodyTruncated ? ' (its first 64 KiB)' : ''}</h4>
    ${a.response.body === '' ? html`<p class="hint">Empty.</p>` : textBox(`Response body of attempt ${n}`, bodyText(a.response.body))}`
        : html`<p>${a.error !== null ? `No response: ${a.error}` : 'Not kept: the attempt was made before responses were kept.'}</p>`
    }
  </details>
</section>`;

/** One delivery: what it is, and every attempt, newest first, with its request and response. */
export const deliveryBody = ({ basePath, csrf, subscription: s, delivery: d }: DeliveryPageView): Html => {
  const attempts = d.attempts.map((a) => attemptDetail(d, a));
  const numbered = attempts.map((a, i) => ({ a, n: i + 1 })).reverse();
  return html`<h1>${d.eventType}${testBadge(d)} to <code>${s.targetUrl}</code></h1>
<section class="panel" aria-labelledby="delivery-title">
  <h2 id="delivery-title">Delivery</h2>
  <dl class="record">
    <dt>Event id</dt><dd><code>${d.eventId}</code></dd>
    <dt>Occurred</dt><dd>${formatTime(d.occurredAt)}</dd>
    <dt>State</dt><dd class="state-${d.state}">${d.state}${d.failureReason ? ` (${d.failureReason.replace('_', ' ')})` : ''}</dd>
    ${d.nextAttemptAt ? html`<dt>Next attempt</dt><dd>${formatTime(d.nextAttemptAt)}</dd>` : ''}
    ${isTestDelivery(d) ? html`<dt>Test</dt><dd>A test event sent from the console, not a change of any record.</dd>` : ''}
  </dl>
  ${
    s.isActive && d.state !== 'pending'
      ? html`<form method="post" action="${consoleUrl(basePath, `/webhooks/${s.id}/redeliver`)}">
    ${csrfField(csrf)}
    <input type="hidden" name="eventId" value="${d.eventId}">
    <button type="submit" class="secondary">Redeliver</button>
  </form>`
      : ''
  }
  <p><a href="${consoleUrl(basePath, `/webhooks/${s.id}`)}">Back to the delivery log</a></p>
</section>
<section class="panel" aria-labelledby="attempts-title">
  <h2 id="attempts-title">Attempts, newest first</h2>
  ${attempts.length === 0 ? html`<p>No attempt yet.</p>` : numbered.map(({ a, n }) => attemptSection(a, n, `attempt-${n}`))}
</section>`;
};
