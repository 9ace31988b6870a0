import type { Filter } from '../../application/ports/ReadModelStore.js';

type Getter = (doc: unknown) => unknown;

const getter = (path: string): Getter => {
  const parts = path.split('.');
  if (parts.length === 1) return (doc) => (doc as Record<string, unknown>)[path];
  return (doc) => {
    let value: unknown = doc;
    for (const part of parts) {
      if (value === null || typeof value !== 'object') return undefined;
      value = (value as Record<string, unknown>)[part];
    }
    return value;
  };
};

/** Lower-cased field values, cached per document object (documents are immutable). */
const lowerCache = new WeakMap<object, Map<string, string>>();
const lowered = (doc: object, field: string, get: Getter): string => {
  let fields = lowerCache.get(doc);
  if (!fields) lowerCache.set(doc, (fields = new Map()));
  let value = fields.get(field);
  if (value === undefined) {
    const raw = get(doc);
    value = typeof raw === 'string' ? raw.toLowerCase() : '';
    fields.set(field, value);
  }
  return value;
};

const compileOne = (filter: Filter): ((doc: object) => boolean) => {
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
      const text = filter.text.toLowerCase();
      const fields = filter.fields.map((field) => ({ field, get: getter(field) }));
      return (doc) => fields.some(({ field, get }) => lowered(doc, field, get).includes(text));
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
export const compileFilters = (filters: readonly Filter[]): ((doc: object) => boolean) => {
  const predicates = filters.map(compileOne);
  if (predicates.length === 0) return () => true;
  if (predicates.length === 1) return predicates[0]!;
  return (doc) => predicates.every((p) => p(doc));
};

export const valueAt = (doc: object, path: string): unknown => getter(path)(doc);
