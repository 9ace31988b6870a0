import type { Filter } from '../../application/ports/ReadModelStore.js';

/**
 * Per-company totals of a read model, kept in MongoDB as each batch changes its
 * documents, so that a list reads its total instead of counting its matches: the
 * company's total (key `all`), and one per combination of field values of the
 * projection's `totals` (`deal.status` = `won`, …), as the SQLite adapter keeps
 * them. A key is a field name MongoDB takes (no `.`, no leading `$`).
 */

/** The key of the company's total (no filter). */
export const ALL = 'all';

/** Value at a dotted path, through plain objects only (as the memory adapter reads it). */
const valueAt = (doc: object, path: string): unknown => {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
};

/** The key of one combination of fields and values (fields in name order; a missing value is null, as `eq null` finds it). */
export const comboKey = (pairs: readonly (readonly [string, unknown])[]): string =>
  encodeURIComponent(JSON.stringify([...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([field, value]) => [field, value ?? null]))).replace(
    /\./g,
    '%2E',
  );

/** Every key a document counts under. */
export const countKeysOf = (doc: object, totals: readonly (readonly string[])[]): string[] => [
  ALL,
  ...totals.map((fields) => comboKey(fields.map((field) => [field, valueAt(doc, field)] as const))),
];

/**
 * The key whose count is a list's total: `all` without filters, a combination's
 * key when the filters are `eq` on exactly its fields; null when the list must be
 * counted (any other filter).
 */
export const countKeyOfQuery = (filters: readonly Filter[], totals: readonly (readonly string[])[]): string | null => {
  if (filters.length === 0) return ALL;
  const pairs: [string, unknown][] = [];
  for (const filter of filters) {
    if (filter.op !== 'eq') return null;
    pairs.push([filter.field, filter.value]);
  }
  const fields = new Set(pairs.map(([field]) => field));
  if (fields.size !== pairs.length) return null;
  const kept = totals.some((combo) => combo.length === fields.size && combo.every((field) => fields.has(field)));
  return kept ? comboKey(pairs) : null;
};

/** How each key's count moves when a document changes from `before` to `after` (null: absent). */
export const countChanges = (before: object | null, after: object | null, totals: readonly (readonly string[])[], into: Map<string, number>): void => {
  if (before !== null) for (const key of countKeysOf(before, totals)) into.set(key, (into.get(key) ?? 0) - 1);
  if (after !== null) for (const key of countKeysOf(after, totals)) into.set(key, (into.get(key) ?? 0) + 1);
};
