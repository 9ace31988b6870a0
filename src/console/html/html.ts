/**
 * HTML written by tagged templates: every interpolated value is escaped, unless
 * it is already `Html` (made by `html` itself, or by `raw` for markup built here,
 * never for input). Arrays are joined, `null`, `undefined` and `false` print
 * nothing, so templates can map and branch inline.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for element content and quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const render = (value: Interpolation): string => {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
};

export const html = (strings: TemplateStringsArray, ...values: readonly Interpolation[]): Html =>
  new Html(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i] as Interpolation) : ''), ''));

/** Markup built by this module's own code (an SVG chart), trusted as it is. */
export const raw = (markup: string): Html => new Html(markup);
