import { randomInt } from 'node:crypto';
import type { Filter, Projection, ReadModelDocument } from '../../application/ports/ReadModelStore.js';

/*
 * What SQLite's and PostgreSQL's read models share: a projection's layout in a
 * table (fields, indexes, searched fields, kept totals), its values by dotted path,
 * the keys of its counts and change tokens. Nothing here speaks to an engine.
 */

/**
 * How one read model is laid out in a table of a SQL engine (SQLite, PostgreSQL),
 * derived from its projection. Each engine stores it beside the table, so that a
 * release whose projection declares other indexes or searched fields finds out
 * and lays the table out again.
 */
export interface ReadModelLayout {
  /** Of this file's table shape; a new one lays every table out again. */
  readonly version: number;
  /** Dotted paths with a generated column each: `f0`, `f1`, … */
  readonly fields: readonly string[];
  /** Each index's fields (after the company, before the creation key). */
  readonly indexes: readonly (readonly string[])[];
  /** Searched fields: lower-cased text in `s0`, `s1`, …, and the full-text columns `c0`, `c1`, … */
  readonly search: readonly string[];
  /**
   * Field combinations whose totals are kept in the table's counts (see
   * `countKeysOf`): the company's total (`[]`) first, then the projection's `totals`.
   */
  readonly totals: readonly (readonly string[])[];
}

export const LAYOUT_VERSION = 1;

/**
 * The key, in a table of counts, of a company's change token: a random number
 * written with every transaction that changes one of the company's documents, so
 * that a reader knows whether what it counted before still holds.
 */
export const CHANGES_KEY = 'changes';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The JSON path of a dotted field, each key quoted (`$."deal"."status"`). */
export const jsonPath = (field: string): string => {
  const parts = field.split('.');
  if (!parts.every((part) => IDENTIFIER.test(part))) throw new Error(`Not a field path: ${JSON.stringify(field)}`);
  return '$' + parts.map((part) => `."${part}"`).join('');
};

export const layoutOf = (projection: Projection<ReadModelDocument>): ReadModelLayout => {
  const fields: string[] = [];
  for (const index of projection.indexes) for (const field of index) if (!fields.includes(field)) fields.push(field);
  const search: string[] = [];
  for (const field of projection.search ?? []) if (!search.includes(field)) search.push(field);
  const totals: string[][] = [[]];
  for (const combination of projection.totals ?? []) {
    const distinct = [...new Set(combination)];
    if (!totals.some((kept) => kept.length === distinct.length && kept.every((field) => distinct.includes(field)))) {
      totals.push(distinct);
    }
  }
  for (const field of [...fields, ...search, ...totals.flat()]) jsonPath(field);
  return { version: LAYOUT_VERSION, fields, indexes: projection.indexes.map((index) => [...index]), search, totals };
};

/** Value at a dotted path, through plain objects only (as the memory adapter reads it). */
export const valueAt = (doc: object, path: string): unknown => {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
};

/**
 * A value as a key of counts: what an `eq` filter compares (null and missing
 * are one; an object or array equals no filter value, so it is kept apart as `{}`).
 */
const countedValue = (value: unknown): unknown => (value == null ? null : typeof value === 'object' ? {} : value);

/** The key of one combination's values in a table of counts (the company's total: `countKey(0, [])`). */
export const countKey = (combination: number, values: readonly unknown[]): string => `${combination}:${JSON.stringify(values.map(countedValue))}`;

/**
 * The keys under which a document is counted in its table's counts: one per kept
 * combination, `<combination>:<JSON array of its values>` (the company's total is
 * `0:[]`). A list whose filters are exactly `eq` on one combination's fields reads
 * its total under one key (`countKeyOf`) instead of counting its matches.
 */
export const countKeysOf =
  (layout: ReadModelLayout) =>
  (doc: object): string[] =>
    layout.totals.map((fields, i) => countKey(i, fields.map((field) => valueAt(doc, field))));

/** The key of a list's total in the counts, when its filters are `eq` on exactly a kept combination (else null). */
export const countKeyOf = (layout: ReadModelLayout, filters: readonly Filter[]): string | null => {
  const equal = new Map<string, unknown>();
  for (const filter of filters) {
    // An empty search is no filter (see `toSqliteFilter`).
    if (filter.op === 'contains' && filter.text === '') continue;
    if (filter.op !== 'eq') return null;
    const known = equal.get(filter.field);
    if (equal.has(filter.field) && JSON.stringify(countedValue(known)) !== JSON.stringify(countedValue(filter.value))) return null;
    equal.set(filter.field, filter.value);
  }
  const i = layout.totals.findIndex((fields) => fields.length === equal.size && fields.every((field) => equal.has(field)));
  return i < 0 ? null : countKey(i, layout.totals[i]!.map((field) => equal.get(field)));
};

/** A new change token (see `CHANGES_KEY`). */
export const changeToken = (): number => randomInt(1, 2 ** 47);
