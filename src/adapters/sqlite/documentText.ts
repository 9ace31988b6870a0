import type { DocumentView, ReadModelDocument } from '../../application/ports/ReadModelStore.js';

/**
 * How a read model's document is kept in its row: JSON text, with the projection's
 * view (`Projection.view`) as its last field, so that `viewOfText` can slice the
 * view out of the text. Projections build their documents with the view last (as
 * every release did); a document that is not is written reordered.
 */
export const documentText = (doc: object, view: string | undefined): string => {
  if (view === undefined || !Object.hasOwn(doc, view)) return JSON.stringify(doc);
  let last: string | undefined;
  for (const key in doc) last = key;
  if (last === view) return JSON.stringify(doc);
  const { [view]: value, ...others } = doc as Record<string, unknown>;
  return JSON.stringify({ ...others, [view]: value });
};

const CLOSING_BRACE = 0x7d;

/** The object a JSON text holds, or null when it is not one. */
const objectOrNull = (text: string): Record<string, unknown> | null => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/**
 * A stored document's view as text, without parsing it: the text after the
 * top-level `,"<view>":` up to the document's closing brace, which is the view's
 * value because the view is the last field (see `documentText`). The fields
 * before it are parsed. The first `,"<view>":` in the text is a key (a quote
 * inside a string is always escaped); it is the top-level one exactly when the
 * text before it, closed with a brace, is a JSON object (a key inside a nested
 * object or array would leave an unclosed bracket). Anything else (no such key,
 * an earlier nested one) is answered by parsing the whole document.
 */
export const viewOfText = <D extends ReadModelDocument>(text: string, view: string): DocumentView<D> => {
  const key = `,${JSON.stringify(view)}:`;
  const at = text.indexOf(key);
  if (at > 0 && text.charCodeAt(text.length - 1) === CLOSING_BRACE) {
    const head = objectOrNull(`${text.slice(0, at)}}`);
    if (head !== null) return { doc: head as unknown as DocumentView<D>['doc'], json: text.slice(at + key.length, -1) };
  }
  const doc = JSON.parse(text) as Record<string, unknown>;
  return { doc: doc as unknown as DocumentView<D>['doc'], json: JSON.stringify(doc[view] ?? null) };
};
