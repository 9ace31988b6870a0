import { html, type Html } from './html.js';

/**
 * A table in a box that scrolls sideways when the window is narrower than the
 * table. The box is a named region in the tab order, so that a keyboard can
 * scroll it too (WCAG 2.1.1; axe's `scrollable-region-focusable`), and a screen
 * reader announces what it holds.
 */
export const tableBox = (label: string, table: Html): Html => html`<div class="table-box" role="region" tabindex="0" aria-label="${label}">${table}</div>`;
