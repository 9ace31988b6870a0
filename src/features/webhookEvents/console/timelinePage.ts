import type { EntityChange, FieldChange } from '../../../application/audit/entityChanges.js';
import { formatEventType, formatTime, formatValue } from '../../../console/html/format.js';
import { html, type Html } from '../../../console/html/html.js';
import { tableBox } from '../../../console/html/tableBox.js';

/** Who made a change, as the timeline names them. */
export const whoOf = (change: EntityChange, keyNames: ReadonlyMap<string, string>): string => {
  const { source, keyId } = change.event.metadata;
  switch (source) {
    case 'api':
      return keyId ? `API key ${keyNames.get(keyId) ?? keyId}` : 'API';
    case 'console':
      return 'this console';
    case 'cli':
      return 'the platform’s operator (CLI)';
    case 'system':
      return 'Chronicle';
    case 'admin':
      return 'the platform (admin API)';
  }
};

const changeRow = (change: FieldChange): Html => html`<tr>
  <th scope="row">${change.field}</th>
  <td>${change.before === undefined ? html`<span class="hint">not set</span>` : html`<del>${formatValue(change.before)}</del>`}</td>
  <td>${change.after === undefined ? html`<span class="hint">not set</span>` : html`<ins>${formatValue(change.after)}</ins>`}</td>
</tr>`;

/** What one event did to the record: deleted it, restored it, or changed these fields (or none). */
const changeBody = (change: EntityChange, kind: string): Html => {
  if (change.lifecycle === 'deleted') {
    return html`<p>The ${kind} was deleted: from then on it answered 404 and left lists, searches and triggers, until a restore.</p>`;
  }
  if (change.lifecycle === 'restored') return html`<p>The ${kind} was restored as it was before its deletion.</p>`;
  if (change.lifecycle === 'erased') {
    return html`<p>The ${kind} was erased, for good: every value it had reads as empty from then on, in this history too, and it cannot be restored.</p>`;
  }
  if (change.changes.length === 0) return html`<p class="hint">No field of the ${kind} changed.</p>`;
  return tableBox(
    `Fields changed by ${formatEventType(change.event.type)} at ${formatTime(change.event.recordedAt)}`,
    html`<table class="changes">
        <thead><tr><th scope="col">Field</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
        <tbody>${change.changes.map(changeRow)}</tbody>
      </table>`,
  );
};

/** The record as it was at a time, field by field. */
const recordAt = (record: object | null, asOf: string): Html =>
  record === null
    ? html`<p>It did not exist at ${formatTime(asOf)}: not created yet, or deleted then.</p>`
    : html`<dl class="record">${Object.entries(record).map(([field, value]) => html`<dt>${field}</dt><dd>${formatValue(value)}</dd>`)}</dl>`;

/** A contact's or a deal's whole history, each change field by field, and the form that shows it as it was at a time. */
export const timelineBody = (spec: {
  /** The kind of record, in the page's words (`contact`), and as its label (`Contact`). */
  readonly kind: string;
  readonly label: string;
  readonly title: string;
  readonly id: string;
  readonly action: string;
  readonly changes: readonly EntityChange[];
  readonly keyNames: ReadonlyMap<string, string>;
  readonly asOf: { readonly at: string; readonly field: string; readonly record: object | null } | null;
}): Html => html`<h1>${spec.title}</h1>
<p class="hint">${spec.label} <code>${spec.id}</code></p>
<section class="panel" aria-labelledby="asof-title">
  <h2 id="asof-title">As it was at a time</h2>
  <form method="get" action="${spec.action}" class="row-actions">
    <label for="as-of">Time (UTC)</label>
    <input type="datetime-local" id="as-of" name="asOf" step="1" value="${spec.asOf?.field ?? ''}" required>
    <button type="submit" class="secondary">Show</button>
  </form>
  ${spec.asOf ? recordAt(spec.asOf.record, spec.asOf.at) : ''}
</section>
<section class="panel" aria-labelledby="history-title">
  <h2 id="history-title">History, oldest first</h2>
  <ol class="timeline">
    ${spec.changes.map(
      (change) => html`<li>
      <h3>${formatEventType(change.event.type)} <span class="hint">at ${formatTime(change.event.recordedAt)}</span></h3>
      <p class="hint">By ${whoOf(change, spec.keyNames)}</p>
      ${changeBody(change, spec.kind)}
    </li>`,
    )}
  </ol>
</section>`;
