import type { WebhookEventCatalogue } from '../application/webhookEventCatalogue.js';
import type { ActivityEvent } from '../application/activityQueries.js';
import { formatTime } from '../../../console/html/format.js';
import { html, type Html } from '../../../console/html/html.js';
import { consoleUrl } from '../../../console/html/layout.js';
import { tableBox } from '../../../console/html/tableBox.js';

/** The record an event is about: a contact or a deal, by the id its data carries. */
const recordLink = (basePath: string, catalogue: WebhookEventCatalogue, event: ActivityEvent): Html => {
  const { id, title, name } = event.data as { id?: unknown; title?: unknown; name?: unknown };
  if (typeof id !== 'string') return html`—`;
  const kind = catalogue.recordPathOf(event.type);
  const label = typeof name === 'string' ? name : typeof title === 'string' ? title : id;
  return html`<a href="${consoleUrl(basePath, `/${kind}/${id}`)}">${label}</a>`;
};

/** The activity page: the company's events, newest first, filtered by type, and a lookup of one record's history. */
export const activityBody = (spec: {
  readonly basePath: string;
  readonly catalogue: WebhookEventCatalogue;
  readonly type: ActivityEvent['type'] | null;
  readonly events: readonly ActivityEvent[];
  readonly page: number;
  readonly hasMore: boolean;
}): Html => {
  const { basePath } = spec;
  const here = (page: number) => consoleUrl(basePath, `/activity?${spec.type ? `type=${spec.type}&` : ''}page=${page}`);
  return html`<h1>Activity</h1>
<section class="panel" aria-labelledby="lookup-title">
  <h2 id="lookup-title">A record’s history</h2>
  <form method="get" action="${consoleUrl(basePath, '/records')}" class="stack">
    <div>
      <label for="lookup-kind">Kind</label>
      <select id="lookup-kind" name="kind">${spec.catalogue.timelines.map((timeline) => html`<option value="${timeline.path}">${timeline.label}</option>`)}</select>
    </div>
    <div>
      <label for="lookup-id">Id</label>
      <input type="text" id="lookup-id" name="id" required autocomplete="off">
    </div>
    <div><button type="submit" class="secondary">Show its history</button></div>
  </form>
</section>
<section class="panel" aria-labelledby="feed-title">
  <h2 id="feed-title">Events, newest first</h2>
  <form method="get" action="${consoleUrl(basePath, '/activity')}" class="row-actions">
    <label for="feed-type">Type</label>
    <select id="feed-type" name="type">
      <option value="">Every type</option>
      ${spec.catalogue.types.map((type) => html`<option value="${type}"${spec.type === type ? html` selected` : ''}>${type}</option>`)}
    </select>
    <button type="submit" class="secondary">Show</button>
  </form>
  ${
    spec.events.length === 0
      ? html`<p>No event${spec.type ? html` of type ${spec.type}` : ''} yet.</p>`
      : tableBox(
        'Events',
        html`<table class="cards">
    <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Record</th><th scope="col">Source</th><th scope="col">Event id</th></tr></thead>
    <tbody>
      ${spec.events.map(
        (event) => html`<tr>
        <td data-label="Time">${formatTime(event.timestamp)}</td>
        <th scope="row">${event.type}</th>
        <td data-label="Record">${recordLink(basePath, spec.catalogue, event)}</td>
        <td data-label="Source">${event.source}</td>
        <td data-label="Event id"><code class="hint">${event.eventId}</code></td>
      </tr>`,
      )}
    </tbody>
  </table>`,
      )
  }
  <nav class="pager" aria-label="Event pages">
    ${spec.page > 1 ? html`<a href="${here(spec.page - 1)}">Newer</a>` : ''}
    ${spec.hasMore ? html`<a href="${here(spec.page + 1)}">Older</a>` : ''}
  </nav>
  <p class="hint">The whole feed, from the first event on, is the API’s <code>GET /events</code>.</p>
</section>`;
};
