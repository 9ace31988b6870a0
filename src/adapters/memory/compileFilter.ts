import type { Filter } from '../../application/ports/ReadModelStore.js';

type Getter = (doc: unknown) => unknown;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const getters = new Map<string, Getter>();

/**
 * An accessor compiled for one dotted path (`deal.status` → `d?.deal?.status`).
 * Each path gets code of its own, so V8 keeps its property loads monomorphic: a
 * shared loop over variable keys was much slower (docs/benchmarks/design-measurements.md).
 * Paths come from projections and queries, never from requests, and every
 * segment must be a plain identifier.
 */
const getter = (path: string): Getter => {
  let compiled = getters.get(path);
  if (!compiled) {
    const parts = path.split('.');
    if (!parts.every((part) => IDENTIFIER.test(part))) throw new Error(`Not a field path: ${JSON.stringify(path)}`);
    compiled = new Function('d', `return d?.${parts.join('?.')};`) as Getter;
    getters.set(path, compiled);
  }
  return compiled;
};

/** The value at a dotted path. */
export const valueAt = (doc: object, path: string): unknown => getter(path)(doc);

/** Separates field values in a search haystack; a search text containing it matches nothing. */
export const SEPARATOR = '\u0000';

/** The lower-cased text that a `contains` filter searches in one document. */
export const haystackOf = (doc: object, fields: readonly string[]): string =>
  fields
    .map((field) => {
      const raw = valueAt(doc, field);
      return typeof raw === 'string' ? raw.toLowerCase() : '';
    })
    .join(SEPARATOR);

type Predicate = (doc: object) => boolean;

const compileOne = (filter: Filter): Predicate => {
  switch (filter.op) {
    case 'eq': {
      const get = getter(filter.field);
      const expected = filter.value;
      return expected === null ? (doc) => get(doc) == null : (doc) => get(doc) === expected;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const get = getter(filter.field);
      const bound = filter.value;
      const kind = typeof bound;
      const test =
        filter.op === 'gt'
          ? (v: string | number) => v > bound
          : filter.op === 'gte'
            ? (v: string | number) => v >= bound
            : filter.op === 'lt'
              ? (v: string | number) => v < bound
              : (v: string | number) => v <= bound;
      return (doc) => {
        const value = get(doc);
        return typeof value === kind && test(value as string | number);
      };
    }
    case 'contains': {
      // Lists answer `contains` from their cached haystacks; this is the plain form.
      const text = filter.text.toLowerCase();
      if (text.includes(SEPARATOR)) return () => false;
      return (doc) => haystackOf(doc, filter.fields).includes(text);
    }
    case 'hasAll': {
      const get = getter(filter.field);
      const values = filter.values;
      return (doc) => {
        const array = get(doc);
        return Array.isArray(array) && values.every((v) => array.includes(v));
      };
    }
  }
};

/** Turns typed filters into one plain predicate (no query engine, no regex). */
export const compileFilters = (filters: readonly Filter[]): Predicate => {
  const predicates = filters.map(compileOne);
  if (predicates.length === 0) return () => true;
  if (predicates.length === 1) return predicates[0]!;
  return (doc) => predicates.every((p) => p(doc));
};


