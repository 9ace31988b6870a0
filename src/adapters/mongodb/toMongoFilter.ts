import type { Document } from 'mongodb';
import type { Filter } from '../../application/ports/ReadModelStore.js';
import { escapeRegex } from './escapeRegex.js';
import { searchClause } from './searchKeys.js';

/** Matches no document (every document has an `_id`). */
const NOTHING: Document = { _id: { $in: [] } };

const fieldName = (field: string): string => {
  // Field names come from typed queries, never from a client; refuse operators anyway.
  if (field === '' || field.startsWith('$')) throw new Error(`Invalid filter field: ${JSON.stringify(field)}`);
  return field;
};

/**
 * One filter as a MongoDB clause, with the same meaning as the memory adapter's
 * predicate; null when the filter matches every document.
 */
const toClause = (companyId: string, filter: Filter, search: readonly string[]): Document | null => {
  switch (filter.op) {
    case 'eq':
      // `$eq: null` matches a null or missing field, like the memory adapter's `== null`.
      return { [fieldName(filter.field)]: { $eq: filter.value } };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      // MongoDB compares only values of the same BSON type (a number bound never
      // matches a string), as the memory adapter does with `typeof`.
      return { [fieldName(filter.field)]: { [`$${filter.op}`]: filter.value } };
    case 'contains': {
      if (filter.fields.length === 0) return NOTHING;
      if (filter.text === '') return null;
      // Fields with search keys: the index on them, then the exact check (searchKeys.ts). Other
      // fields: a case-insensitive literal substring, by a scan of the company's documents; the
      // server runs $regex in UTF-8 mode, so `i` folds non-ASCII letters too (Ü/ü), though not
      // every letter as JavaScript's toLowerCase does.
      const regex = { $regex: escapeRegex(filter.text), $options: 'i' };
      const clauses = filter.fields.map((field) => {
        const i = search.indexOf(field);
        return i >= 0 ? searchClause(companyId, [i], filter.text) : { [fieldName(field)]: regex };
      });
      return clauses.length === 1 ? clauses[0]! : { $or: clauses };
    }
    case 'hasAll': {
      // `$type: 'array'` keeps scalar fields out, as `Array.isArray` does in memory;
      // an empty `$all` would match nothing, while "holds every one of none" is true.
      const field = fieldName(filter.field);
      return filter.values.length === 0
        ? { [field]: { $type: 'array' } }
        : { [field]: { $all: [...filter.values], $type: 'array' } };
    }
    default: {
      const unknown: never = filter;
      throw new Error(`Unknown filter: ${JSON.stringify(unknown)}`);
    }
  }
};

/**
 * A list query's filters as one MongoDB filter, always scoped to the company.
 * `search`: the projection's searched fields whose search keys every document
 * holds (none while the collection is laid out again).
 */
export const toMongoFilter = (companyId: string, filters: readonly Filter[], search: readonly string[] = []): Document => {
  const clauses: Document[] = [];
  for (const filter of filters) {
    const clause = toClause(companyId, filter, search);
    if (clause !== null) clauses.push(clause);
  }
  // `$and` keeps two bounds on one field (gt and lt) from overwriting each other.
  return clauses.length === 0 ? { companyId } : { companyId, $and: clauses };
};
