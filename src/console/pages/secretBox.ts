import { html, type Html } from '../html/html.js';

/** A secret shown once, with a copy button (shown by the script; without it, the text is selected and copied by hand). */
export const secretBox = (id: string, label: string, secret: string, hint: string): Html => html`<div class="secret">
  <span id="${id}-label">${label}</span>
  <code id="${id}" aria-labelledby="${id}-label">${secret}</code>
  <button type="button" class="secondary" data-copy="${id}" hidden>Copy</button>
  <span id="${id}-status" class="copied" role="status" aria-live="polite"></span>
</div>
<p class="hint">${hint}</p>`;
