import type { Document } from 'mongodb';
import { escapeRegex } from './escapeRegex.js';

/**
 * Substring search backed by an index, on any MongoDB (Atlas Search is not
 * everywhere): each document keeps, for each searched field of its projection
 * (`Projection.search`, field `i` in that list):
 *
 * - `_s<i>`: the field's text lower-cased as JavaScript does (`toLowerCase`, the
 *   memory adapter's meaning of "case-insensitive"), when the field is a string;
 * - in the multikey array `_g`, indexed after the company: `<i>:<gram>` for every
 *   three code points of that lower-cased text padded with two `\u0000` at the end,
 *   so that every substring of one or two code points is the start of a gram too.
 *
 * A search for `text` (lower-cased likewise) in field `i` asks the index for the
 * documents holding every gram of `text` (three code points or more), or a gram
 * starting with it (one or two), then checks the literal substring in `_s<i>`: the
 * grams narrow the documents down, the check makes the answer exact, so it equals
 * a plain scan.
 */

/** The multikey array of grams, indexed after `companyId`. */
export const GRAMS_FIELD = '_g';
/** The lower-cased text of searched field `i`. */
export const textField = (i: number): string => `_s${i}`;

const PAD = '\u0000\u0000';

/** Value at a dotted path, through plain objects only (as the memory adapter reads it). */
const valueAt = (doc: object, path: string): unknown => {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
};

/** The grams of a lower-cased text (padded: one per code point). */
const gramsOf = (lower: string): string[] => {
  const points = [...(lower + PAD)];
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= points.length; i++) grams.add(points.slice(i, i + 3).join(''));
  return [...grams];
};

/** The search fields of a document: `_s<i>` for each searched string, and the grams of all of them. */
export const searchKeysOf = (doc: object, fields: readonly string[]): Record<string, unknown> => {
  const keys: Record<string, unknown> = {};
  const grams: string[] = [];
  fields.forEach((field, i) => {
    const value = valueAt(doc, field);
    if (typeof value !== 'string') return;
    const lower = value.toLowerCase();
    keys[textField(i)] = lower;
    for (const gram of gramsOf(lower)) grams.push(`${i}:${gram}`);
  });
  keys[GRAMS_FIELD] = grams;
  return keys;
};

/** The names of every field `searchKeysOf` may write, for projections that hide them. */
export const searchKeyFields = (fields: readonly string[]): string[] => [GRAMS_FIELD, ...fields.map((_, i) => textField(i))];

/**
 * The clause of a case-insensitive literal search of `text` (not empty) in the
 * searched fields at `indexes` (of `Projection.search`), for one company: one
 * branch per field, each naming the company so that it uses the index on
 * `{companyId, _g}`.
 */
export const searchClause = (companyId: string, indexes: readonly number[], text: string): Document => {
  const lower = text.toLowerCase();
  const points = [...lower];
  // The needle's own grams (not those of its padding); a NUL in it only makes them fewer.
  const needleGrams = points.length >= 3 ? gramsOf(lower).filter((gram) => !gram.includes('\u0000')) : [];
  const branches = indexes.map((i) => {
    const grams =
      points.length < 3 ? { $regex: `^${escapeRegex(`${i}:${lower}`)}` } : needleGrams.length > 0 ? { $all: needleGrams.map((gram) => `${i}:${gram}`) } : null;
    return { companyId, ...(grams ? { [GRAMS_FIELD]: grams } : {}), [textField(i)]: { $regex: escapeRegex(lower) } };
  });
  return branches.length === 1 ? branches[0]! : { $or: branches };
};
