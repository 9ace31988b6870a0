import { expect } from 'chai';
import type { Document } from 'mongodb';
import { GRAMS_FIELD, searchClause, searchKeysOf, textField } from '../../../src/adapters/mongodb/searchKeys.js';

/**
 * The n-gram keys of the MongoDB search, checked for what they promise: the grams
 * of a search find every document a plain scan finds (never fewer), and the literal
 * check of the lower-cased text makes the answer exactly the scan's. The clauses are
 * evaluated here by a small stand-in of the server's matching for the few shapes
 * they take (equality, `$all`, `$regex`, `$or`); against a real server the same is
 * checked by the search contract (MONGODB_URL).
 */
const matches = (doc: Record<string, unknown>, clause: Document): boolean => {
  if (Array.isArray(clause.$or)) return (clause.$or as Document[]).some((branch) => matches(doc, branch));
  return Object.entries(clause).every(([field, condition]) => {
    const value = doc[field];
    if (condition === null || typeof condition !== 'object') return value === condition;
    const { $all, $regex } = condition as { $all?: string[]; $regex?: string };
    const values = Array.isArray(value) ? (value as unknown[]) : [value];
    if ($all) return $all.every((wanted) => values.includes(wanted));
    // The server matches a $regex against each element of an array, and strings only.
    if ($regex !== undefined) return values.some((v) => typeof v === 'string' && new RegExp($regex).test(v));
    throw new Error(`no stand-in for ${JSON.stringify(condition)}`);
  });
};

const FIELDS = ['title', 'meta.status'];
const doc = (title: unknown, status: unknown) => ({ companyId: 'c', title, meta: { status } });
const stored = (d: ReturnType<typeof doc>) => ({ ...d, ...searchKeysOf(d, FIELDS) });

/** The memory adapter's meaning: a case-insensitive literal substring of any of the fields. */
const scan = (d: ReturnType<typeof doc>, indexes: number[], text: string) =>
  indexes.some((i) => {
    const value = i === 0 ? d.title : d.meta.status;
    return typeof value === 'string' && value.toLowerCase().includes(text.toLowerCase());
  });

describe('MongoDB search keys (n-grams): equal to a plain scan', () => {
  const alphabet = ['a', 'b', 'A', 'ä', 'Ä', 'ß', 'İ', 'ı', 'Σ', 'ς', ' ', '.', '*', '(', '\\', '^', '$', '-', '#', '/', '😀', '\u0000', 'x'];
  let seed = 7;
  const random = (below: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % below;
  };
  const text = (max: number) => Array.from({ length: random(max) + 1 }, () => alphabet[random(alphabet.length)]).join('');

  it('keeps the lower-cased text and the padded grams of each searched string, nothing for others', () => {
    const keys = searchKeysOf(doc('AbC', 7), FIELDS);
    expect(keys[textField(0)]).to.equal('abc');
    expect(keys).not.to.have.property(textField(1));
    expect(keys[GRAMS_FIELD]).to.deep.equal(['0:abc', '0:bc\u0000', '0:c\u0000\u0000']);
  });

  it('finds exactly what the scan finds, for random texts and searches (short, long, special casing, regex characters)', () => {
    const docs = Array.from({ length: 300 }, () => doc(text(10), random(4) === 0 ? null : text(5)));
    const searches = [...new Set([...Array.from({ length: 300 }, () => text(4)), 'a', 'ab', 'SS', 'i̇', 'σ', '\u0000'])];
    const withKeys = docs.map(stored);
    for (const search of searches) {
      for (const indexes of [[0], [1], [0, 1]]) {
        const clause = searchClause('c', indexes, search);
        const found = withKeys.flatMap((d, n) => (matches(d, clause) ? [n] : []));
        const expected = docs.flatMap((d, n) => (scan(d, indexes, search) ? [n] : []));
        expect(found, `${JSON.stringify(search)} in ${indexes.join(',')}`).to.deep.equal(expected);
      }
    }
  });

  it('asks the index for the grams of a long search, and for grams starting with a short one', () => {
    expect(searchClause('c', [0], 'Abcd')).to.deep.include({ companyId: 'c', [GRAMS_FIELD]: { $all: ['0:abc', '0:bcd'] } });
    expect(searchClause('c', [1], 'a.')).to.deep.include({ [GRAMS_FIELD]: { $regex: '^1:a\\.' } });
    expect(searchClause('c', [0, 1], 'abc')).to.have.property('$or').with.length(2);
  });
});
