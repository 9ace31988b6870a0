import { CONSOLE_PATH } from '../consolePath.js';
import { CONSOLE_ASSETS_VERSION } from '../assets/consoleAssets.js';
import { html, type Html } from './html.js';
import { formatTime } from './format.js';

/** The sections of the console, in the navigation's order. */
export type ConsoleSection = 'overview' | 'keys' | 'webhooks' | 'activity';

const SECTIONS: readonly { readonly id: ConsoleSection; readonly label: string; readonly path: string }[] = [
  { id: 'overview', label: 'Overview', path: '' },
  { id: 'keys', label: 'API keys', path: '/keys' },
  { id: 'webhooks', label: 'Webhooks', path: '/webhooks' },
  { id: 'activity', label: 'Activity', path: '/activity' },
];

/** A signed-in page's frame: whose console it is, the way out, and the CSRF token its forms carry. */
export interface PageSession {
  readonly companyName: string;
  readonly csrf: string;
  readonly expiresAt: Date;
}

export interface PageSpec {
  readonly basePath: string;
  readonly title: string;
  readonly body: Html;
  /** Absent: a page outside a session (a link's page, an error before sign-in). */
  readonly session?: PageSession;
  readonly section?: ConsoleSection;
  /** A short message at the top (what a change just did). */
  readonly notice?: string | null;
  /** The text the header's search box holds (the search page's own query). */
  readonly search?: string;
}

/** The longest text the header's search takes (as the API's `search` parameters). */
export const SEARCH_MAX_LENGTH = 200;

/** A console URL under the base path. */
export const consoleUrl = (basePath: string, path = ''): string => `${basePath}${CONSOLE_PATH}${path}`;

/** The hidden CSRF field every form of a signed-in page carries. */
export const csrfField = (csrf: string): Html => html`<input type="hidden" name="_csrf" value="${csrf}">`;

const navigation = (spec: PageSpec, session: PageSession): Html => html`
  <header class="top">
    <a class="skip" href="#main">Skip to content</a>
    <p class="brand"><span class="brand-name">Chronicle</span> <span class="company">${session.companyName}</span></p>
    <nav aria-label="Console">
      <ul>
        ${SECTIONS.map(
          (section) =>
            html`<li><a href="${consoleUrl(spec.basePath, section.path)}"${spec.section === section.id ? html` aria-current="page"` : ''}>${section.label}</a></li>`,
        )}
      </ul>
    </nav>
    <form class="search" role="search" method="get" action="${consoleUrl(spec.basePath, '/search')}">
      <label for="header-search" class="visually-hidden">Find a contact or deal</label>
      <input type="search" id="header-search" name="q" value="${spec.search ?? ''}" maxlength="${SEARCH_MAX_LENGTH}" placeholder="Name, e-mail, phone or deal title" autocomplete="off">
      <button type="submit" class="secondary">Search</button>
    </form>
    <form class="logout" method="post" action="${consoleUrl(spec.basePath, '/logout')}">
      ${csrfField(session.csrf)}
      <button type="submit" class="link">Sign out</button>
    </form>
  </header>`;

/** A whole console page: the document, the stylesheet and script of this server, the navigation when signed in. */
export const layout = (spec: PageSpec): Html => {
  const asset = (name: string) => `${consoleUrl(spec.basePath, `/assets/${name}`)}?v=${CONSOLE_ASSETS_VERSION}`;
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${spec.title} · Chronicle console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${asset('console.css')}">
<script src="${asset('console.js')}" defer></script>
</head>
<body>
${spec.session ? navigation(spec, spec.session) : html`<header class="top"><p class="brand"><span class="brand-name">Chronicle</span></p></header>`}
<main id="main" tabindex="-1">
${spec.notice ? html`<p class="notice" role="status">${spec.notice}</p>` : ''}
${spec.body}
</main>
${spec.session ? html`<footer><p>Session ends by ${formatTime(spec.session.expiresAt)} at the latest, or after a while without use.</p></footer>` : ''}
</body>
</html>
`;
};
