import type { ApiKeyView, KeyState } from '../application/apiKeyQueries.js';
import type { IssuedApiKey } from '../application/issueApiKey.js';
import { EVERY_PERMISSION, ApiKeyType, SPECIFICATION_PERMISSIONS, type Permission } from '../../../shared/permissions.js';
import { formatTime } from '../../../console/html/format.js';
import { describedBy, problemOf } from '../../../console/html/formProblems.js';
import { html, type Html } from '../../../console/html/html.js';
import { consoleUrl, csrfField } from '../../../console/html/layout.js';
import { secretBox } from '../../../console/pages/secretBox.js';
import { tableBox } from '../../../console/html/tableBox.js';

export const KEY_TYPES = Object.keys(ApiKeyType.keys) as readonly ApiKeyType[];

/** The value the "Select all" checkbox sends: the seven permissions of the specification, never `contacts:erase`. */
export const SELECT_ALL = 'all';

/** What the create form was sent with, and what was wrong with it (shown again with the form). */
export interface KeyForm {
  readonly name: string;
  readonly type: string;
  readonly permissions: readonly string[];
  readonly expiresAt: string;
  readonly problems: Readonly<Record<string, string>>;
}

export const EMPTY_KEY_FORM: KeyForm = { name: '', type: 'generic', permissions: [], expiresAt: '', problems: {} };

/** Whether the form was sent with this checkbox ticked. */
const checked = (form: KeyForm, value: string): Html | '' => (form.permissions.includes(value) ? html` checked` : '');

/** A key as the list shows it: with its state when the page was asked for. */
export interface ListedKey extends ApiKeyView {
  readonly state: KeyState;
}

/** The keys page: the company's keys, and the create form as sent (empty at first). */
export interface KeysPageView {
  readonly basePath: string;
  readonly csrf: string;
  readonly keys: readonly ListedKey[];
  readonly form: KeyForm;
}

/** The page after a key was created. */
export interface KeyCreatedPageView {
  readonly basePath: string;
  readonly key: IssuedApiKey;
}

const keyRow = (basePath: string, csrf: string, key: ListedKey): Html => {
  const { state } = key;
  return html`<tr>
  <th scope="row">${key.label}<br><code class="hint">${key.id}</code></th>
  <td data-label="Type">${key.type}</td>
  <td data-label="Permissions">${key.permissions.join(', ')}</td>
  <td data-label="Created">${formatTime(key.createdAt)}</td>
  <td data-label="Expires">${key.expiresAt === null ? 'never' : formatTime(key.expiresAt)}</td>
  <td data-label="Hint"><code>${key.keyHint}</code></td>
  <td data-label="State" class="state-${state}">${state}${key.revokedAt ? html`<br><span class="hint">${formatTime(key.revokedAt)}</span>` : ''}</td>
  <td>${
    state === 'revoked'
      ? ''
      : html`<form method="post" action="${consoleUrl(basePath, `/keys/${key.id}/revoke`)}" data-confirm="${`Revoke the key ${key.label}? Requests with it are refused from now on; this cannot be undone.`}">
      ${csrfField(csrf)}
      <button type="submit" class="danger" aria-label="${`Revoke ${key.label}`}">Revoke</button>
    </form>`
  }</td>
</tr>`;
};

/** The keys page: every key of the company (never the key itself), and the form that creates one. */
export const keysBody = (spec: KeysPageView): Html => {
  const { form } = spec;
  return html`<h1>API keys</h1>
<section class="panel" aria-labelledby="keys-title">
  <h2 id="keys-title">Keys of your company</h2>
  ${
    spec.keys.length === 0
      ? html`<p>No key yet.</p>`
      : tableBox(
        'Keys of your company',
        html`<table class="cards">
    <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Permissions</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Hint</th><th scope="col">State</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
    <tbody>${spec.keys.map((key) => keyRow(spec.basePath, spec.csrf, key))}</tbody>
  </table>`,
      )
  }
</section>
<section class="panel" aria-labelledby="create-title">
  <h2 id="create-title">Create a key</h2>
  <form method="post" action="${consoleUrl(spec.basePath, '/keys')}" class="stack" novalidate>
    ${csrfField(spec.csrf)}
    <div>
      <label for="key-name">Name</label>
      <input type="text" id="key-name" name="name" value="${form.name}" maxlength="200" autocomplete="off"${describedBy(form, 'name')}>
      <p class="hint">So that you can tell your keys apart, for example “Zapier production”.</p>
      ${problemOf(form, 'name')}
    </div>
    <div>
      <label for="key-type">Type</label>
      <select id="key-type" name="type"${form.problems.type ? describedBy(form, 'type') : html` aria-describedby="key-type-hint"`}>
        ${KEY_TYPES.map((type) => html`<option value="${type}"${form.type === type ? html` selected` : ''}>${type}</option>`)}
      </select>
      <p class="hint" id="key-type-hint">
        What the key is for, so that you can tell keys apart: <strong>generic</strong> for your own code and scripts,
        <strong>custom</strong> for an integration built for you, <strong>zapier</strong> for the Zapier app,
        <strong>make</strong> for the Make app. The type grants nothing by itself: the permissions below decide what the key may do.
      </p>
      ${problemOf(form, 'type')}
    </div>
    <fieldset${describedBy(form, 'permissions')}>
      <legend>Permissions</legend>
      <label><input type="checkbox" name="permissions" value="${SELECT_ALL}" data-select-all="key-permissions"${checked(form, SELECT_ALL)}> Select all</label>
      <div id="key-permissions">
        ${SPECIFICATION_PERMISSIONS.map(
          (permission) => html`<label><input type="checkbox" name="permissions" value="${permission}"${checked(form, permission)}> ${permission}</label>`,
        )}
      </div>
      <fieldset>
        <legend>Permanent erasure</legend>
        <label><input type="checkbox" name="permissions" value="contacts:erase" aria-describedby="key-erase-warning"${checked(form, 'contacts:erase')}> contacts:erase</label>
        <p class="hint" id="key-erase-warning"><strong class="bad">Warning:</strong> a key with this permission can erase a contact permanently: its personal data is gone for good and cannot be restored. “Select all” leaves it out: tick it only for a key that must erase.</p>
      </fieldset>
      ${problemOf(form, 'permissions')}
    </fieldset>
    <div>
      <label for="key-expires">Expires (UTC, optional)</label>
      <input type="datetime-local" id="key-expires" name="expiresAt" value="${form.expiresAt}"${describedBy(form, 'expiresAt')}>
      <p class="hint">Leave empty for a key that never expires.</p>
      ${problemOf(form, 'expiresAt')}
    </div>
    <div><button type="submit">Create key</button></div>
  </form>
</section>`;
};

/** The page after a key was created: the key, once, with its copy button. */
export const keyCreatedBody = ({ basePath, key }: KeyCreatedPageView): Html => html`<h1>API key created</h1>
<section class="panel" aria-labelledby="created-title">
  <h2 id="created-title">Your new key</h2>
  ${secretBox('new-key', 'Key', key.key, 'Shown only now: Chronicle keeps only a hash of it. Store it safely before you leave this page.')}
  <dl class="record">
    <dt>Name</dt><dd>${key.name ?? ''}</dd>
    <dt>Id</dt><dd><code>${key.keyId}</code></dd>
    <dt>Type</dt><dd>${key.type}</dd>
    <dt>Permissions</dt><dd>${key.permissions.join(', ')}</dd>
    <dt>Expires</dt><dd>${key.expiresAt === null ? 'never' : formatTime(key.expiresAt)}</dd>
  </dl>
  <p><a href="${consoleUrl(basePath, '/keys')}">Back to the keys</a></p>
</section>`;

/**
 * Permissions as sent by the checkboxes: known ones only, in the order a key
 * keeps them; "Select all" gives the seven of the specification, and
 * `contacts:erase` only when its own checkbox is ticked.
 */
export const permissionsOf = (values: readonly string[]): Permission[] =>
  EVERY_PERMISSION.filter(
    (permission) => values.includes(permission) || (values.includes(SELECT_ALL) && SPECIFICATION_PERMISSIONS.includes(permission)),
  );
