import { html, type Html } from '../html/html.js';
import { csrfField } from '../html/layout.js';

/**
 * The page that asks before something that cannot be undone, when the browser
 * did not ask (no script): the same form again, with `confirmed=yes`.
 */
export const confirmBody = (spec: {
  readonly question: string;
  readonly detail: string;
  readonly action: string;
  readonly csrf: string;
  readonly confirmLabel: string;
  readonly cancelHref: string;
  readonly fields?: Readonly<Record<string, string>>;
}): Html => html`<section class="panel" aria-labelledby="confirm-title">
  <h1 id="confirm-title">${spec.question}</h1>
  <p>${spec.detail}</p>
  <form method="post" action="${spec.action}" class="row-actions">
    ${csrfField(spec.csrf)}
    <input type="hidden" name="confirmed" value="yes">
    ${Object.entries(spec.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
    <button type="submit" class="danger">${spec.confirmLabel}</button>
    <a class="button secondary" href="${spec.cancelHref}">Cancel</a>
  </form>
</section>`;
