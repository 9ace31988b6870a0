import type { ContactMatch, ContactMatches } from '../../contacts/index.js';
import type { DealMatch, DealMatches } from '../../deals/index.js';
import { formatCount, formatTime } from '../../../console/html/format.js';
import { html, type Html } from '../../../console/html/html.js';
import { SEARCH_MAX_LENGTH } from '../../../console/html/layout.js';

/** What the search page shows: nothing asked yet, a text too long, or what a search found. */
export type SearchView =
  | { readonly kind: 'empty' }
  | { readonly kind: 'too-long'; readonly length: number }
  | {
      readonly kind: 'found';
      readonly text: string;
      readonly contacts: ContactMatches;
      readonly deals: DealMatches;
      /** The history page of a contact and of a deal. */
      readonly contactUrl: (id: string) => string;
      readonly dealUrl: (id: string) => string;
    };

const WHAT_IT_FINDS = html`<p class="hint">The search finds your company’s contacts by name, e-mail or phone number (as stored: <code>+4930…</code>), and its deals by title or by their contact’s name, e-mail or phone number. Case does not matter; deleted and erased records are not found. Open a result to see its history.</p>`;

/** “3 of 57”, or “3” when all are shown. */
const shown = (count: number, total: number): string => (count < total ? `${formatCount(count)} of ${formatCount(total)}` : formatCount(total));

const contactItem = (url: (id: string) => string) => (contact: ContactMatch): Html => html`<li>
  <a href="${url(contact.id)}">${contact.name}</a>
  <p class="hint">${[contact.email, contact.phoneNumber, contact.currentCompany].filter((part): part is string => part !== null).join(' · ')}</p>
  <p class="hint">Created ${formatTime(contact.createdAt)} · <code>${contact.id}</code></p>
</li>`;

const dealItem = (url: (id: string) => string) => (deal: DealMatch): Html => html`<li>
  <a href="${url(deal.id)}">${deal.title}</a>
  <p class="hint">${deal.status}${deal.stage === null ? '' : ` · ${deal.stage}`} · ${formatCount(deal.value)} ${deal.currency}${deal.contactName === null ? '' : ` · with ${deal.contactName}`}</p>
  <p class="hint">Created ${formatTime(deal.createdAt)} · <code>${deal.id}</code></p>
</li>`;

/** One kind of record's results: its list, how many, and a word when there are more than it shows. */
const results = <M>(spec: {
  readonly id: string;
  readonly title: string;
  readonly noun: string;
  readonly found: { readonly items: readonly M[]; readonly total: number };
  readonly item: (match: M) => Html;
}): Html => html`<section class="panel" aria-labelledby="${spec.id}">
  <h2 id="${spec.id}">${spec.title} (${shown(spec.found.items.length, spec.found.total)})</h2>
  ${
    spec.found.total === 0
      ? html`<p>No ${spec.noun} matches.</p>`
      : html`<ul class="results">${spec.found.items.map(spec.item)}</ul>
  ${spec.found.items.length < spec.found.total ? html`<p class="hint">The newest ${formatCount(spec.found.items.length)} are shown: add to the search to narrow it.</p>` : ''}`
  }
</section>`;

/** The search page: what it finds, then the company's matching contacts and deals, newest first, each linked to its history. */
export const searchBody = (view: SearchView): Html => {
  switch (view.kind) {
    case 'empty':
      return html`<h1>Search</h1>
<section class="panel" aria-labelledby="search-help">
  <h2 id="search-help">Type what you are looking for</h2>
  <p>Enter a name, an e-mail address, a phone number or a deal’s title in the search box at the top of the page.</p>
  ${WHAT_IT_FINDS}
</section>`;
    case 'too-long':
      return html`<h1>Search</h1>
<section class="panel error" aria-labelledby="search-problem">
  <h2 id="search-problem">That search is too long</h2>
  <p>A search can be at most ${SEARCH_MAX_LENGTH} characters; this one has ${formatCount(view.length)}. Search for part of it.</p>
  ${WHAT_IT_FINDS}
</section>`;
    case 'found': {
      const none = view.contacts.total === 0 && view.deals.total === 0;
      return html`<h1>Results for “${view.text}”</h1>
${none ? html`<p class="notice" role="status">Nothing matches “${view.text}”. Check the spelling, or search for part of a name, e-mail address or phone number.</p>` : ''}
${results({ id: 'contacts-found', title: 'Contacts', noun: 'contact', found: view.contacts, item: contactItem(view.contactUrl) })}
${results({ id: 'deals-found', title: 'Deals', noun: 'deal', found: view.deals, item: dealItem(view.dealUrl) })}
${WHAT_IT_FINDS}`;
    }
  }
};
