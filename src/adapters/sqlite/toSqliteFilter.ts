import type { Filter } from '../../application/ports/ReadModelStore.js';
import { jsonPath, type ReadModelLayout } from '../readModels/readModelLayout.js';
import { FTS_SUFFIX, quoteName, typedField } from './readModelLayout.js';

/** A list query's filters in SQL: the read model's table is `t`. */
export interface SqliteFilter {
  /** The table, driven by its full-text table when a search of 3 or more characters can use it. */
  readonly from: string;
  readonly where: string;
  /** In the order of the placeholders of `from`, then `where`. */
  readonly params: readonly unknown[];
  /**
   * When the full-text table drives `from`: about how many candidates it finds
   * (an estimate, never fewer than the matches), and the same filter read from
   * the table in the company's order instead, which stops at a page's end (see
   * `SqliteDocumentCollection.pageFilter`).
   */
  readonly fullText?: { readonly candidates: number; readonly inOrder: SqliteFilter };
}

/** Shortest search the trigram index answers; shorter ones read the company's texts. */
export const TRIGRAM = 3;

/** The name of the SQL function that lower-cases like JavaScript (registered on every connection). */
export const LOWER_FUNCTION = 'chronicle_lower';

/**
 * What a search's plan needs to know of the text index. Estimates (they may be a
 * little old), which only choose how candidates are found, never the answer.
 */
export interface TextStatistics {
  /** About how many documents, of every company, hold `trigram` in a searched field: `atMost` when at least that many. */
  documentsWith(trigram: string, atMost: number): number;
  /** About how many documents the company has. */
  companyDocuments(): number;
}

/** Trigrams of a search text looked up at most (spread over it), to find a rare one. */
const SAMPLED_TRIGRAMS = 6;
/**
 * A full-text candidate costs a row lookup and an `instr`; a document in the
 * company's covering index, an `instr` alone: a candidate counts as two index
 * entries (measured: docs/benchmarks/design-measurements.md, "SQLite read models").
 */
export const LOOKUP_COST = 2;

/** The distinct trigrams (of code points) of a text, at most SAMPLED_TRIGRAMS, spread evenly over it. */
const trigramsOf = (chars: readonly string[]): string[] => {
  const all = [...new Set(chars.slice(0, chars.length - 2).map((_, i) => chars.slice(i, i + 3).join('')))];
  if (all.length <= SAMPLED_TRIGRAMS) return all;
  return Array.from({ length: SAMPLED_TRIGRAMS }, (_, k) => all[Math.round((k * (all.length - 1)) / (SAMPLED_TRIGRAMS - 1))]!);
};

/** A search text as an FTS5 phrase: in double quotes, where everything is literal (`"` doubled). */
const phrase = (text: string): string => `"${text.replace(/"/g, '""')}"`;

/** The SQL value of a field: its generated column when it has one, else the same expression on the document. */
export const fieldValue = (layout: ReadModelLayout, field: string): string => {
  const i = layout.fields.indexOf(field);
  return i >= 0 ? `t.f${i}` : typedField('t.doc', field);
};

/** A bound value as the typed field values compare with it (booleans are the blobs x'01' and x'00'). */
const bound = (value: string | number | boolean): unknown =>
  typeof value === 'boolean' ? Buffer.from([value ? 1 : 0]) : value;

/**
 * The filters of a list query as SQL with the meaning of the memory adapter's
 * predicates (`compileFilter.ts`); null when nothing can match.
 *
 * - `eq`, `gt`, …: on the typed field value (see `typedField`); a string bound
 *   compares only with strings (`< x''` keeps blobs out, `>= ''` numbers), a
 *   number bound only with numbers (`< ''`). Strings compare by code point
 *   (SQLite's BINARY), JavaScript by UTF-16 unit: the two differ only between
 *   characters above U+FFFF and U+E000–U+FFFF.
 * - `contains`: the search text lower-cased by JavaScript, then `instr` in the
 *   searched fields' stored lower-cased texts: exactly the memory adapter's literal
 *   `includes`. With 3 or more characters (code points) and every field indexed,
 *   the FTS5 trigram table finds the candidates first (a phrase in double quotes:
 *   `%`, `_`, `*`, `AND`, `NEAR(…)` are just text); shorter texts and fields
 *   without a stored text (not in the projection's `search`) are checked on each
 *   of the company's documents (the latter through the registered lower-casing
 *   function).
 * - `hasAll`: the field is an array holding every value as a string.
 */
export const toSqliteFilter = (
  table: string,
  layout: ReadModelLayout,
  /** The company's key in `read_model_companies`. */
  company: number,
  filters: readonly Filter[],
  /** Absent: a search's whole text is looked up in the full-text table, as one phrase. */
  statistics?: TextStatistics,
  /** The table's index of its searched texts by `seq`, through which full-text candidates are checked. */
  textIndex?: string | null,
): SqliteFilter | null => {
  const where: string[] = ['t.company = ?'];
  const params: unknown[] = [company];
  let driver: { readonly match: string; readonly candidates: number } | null = null;

  for (const filter of filters) {
    switch (filter.op) {
      case 'eq': {
        const value = fieldValue(layout, filter.field);
        if (filter.value === null) where.push(`${value} IS NULL`);
        else {
          where.push(`${value} = ?`);
          params.push(bound(filter.value));
        }
        break;
      }
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const value = fieldValue(layout, filter.field);
        const operator = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[filter.op];
        const isText = typeof filter.value === 'string';
        const upward = filter.op === 'gt' || filter.op === 'gte';
        // Keep to values of the bound's type: texts sit between numbers and blobs, numbers below texts.
        const sameType = isText ? (upward ? `${value} < x''` : `${value} >= ''`) : upward ? `${value} < ''` : null;
        where.push(sameType === null ? `${value} ${operator} ?` : `(${value} ${operator} ? AND ${sameType})`);
        params.push(filter.value);
        break;
      }
      case 'contains': {
        if (filter.text === '') break;
        if (filter.fields.length === 0) return null;
        const needle = filter.text.toLowerCase();
        // The memory adapter joins the fields with NUL: a search holding one matches nothing.
        if (needle.includes('\u0000')) return null;
        const columns = filter.fields.map((field) => layout.search.indexOf(field));
        const checks = filter.fields.map((field, k) => {
          const column = columns[k]!;
          if (column >= 0) return `instr(t.s${column}, ?) > 0`;
          const path = `'${jsonPath(field)}'`;
          return `(json_type(t.doc, ${path}) = 'text' AND instr(${LOWER_FUNCTION}(t.doc ->> ${path}), ?) > 0)`;
        });
        where.push(checks.length === 1 ? checks[0]! : `(${checks.join(' OR ')})`);
        for (let k = 0; k < checks.length; k++) params.push(needle);
        const chars = [...needle];
        if (driver === null && columns.every((column) => column >= 0) && chars.length >= TRIGRAM) {
          const all = layout.search.every((_, i) => columns.includes(i));
          const inColumns = (text: string) => (all ? phrase(text) : `{${columns.map((column) => `c${column}`).join(' ')}} : ${phrase(text)}`);
          if (!statistics) {
            driver = { match: inColumns(needle), candidates: Infinity };
          } else {
            // Only the rarest trigrams (a phrase of every trigram reads every one's list, and the
            // common ones list nearly every document); `instr` then keeps the exact matches. When
            // even the rarest is common, the company's covering index is cheaper to read.
            // Counting a trigram's documents stops where the company's index would be cheaper anyway.
            const worthIt = Math.floor(statistics.companyDocuments() / LOOKUP_COST);
            const ranked = trigramsOf(chars)
              .map((trigram) => ({ trigram, documents: statistics.documentsWith(trigram, worthIt + 1) }))
              .sort((a, b) => a.documents - b.documents);
            const [rarest, next] = ranked as [(typeof ranked)[number], (typeof ranked)[number] | undefined];
            if (rarest.documents <= worthIt) {
              const chosen = next && next.documents <= rarest.documents * 8 ? [rarest, next] : [rarest];
              driver = { match: chosen.map(({ trigram }) => inColumns(trigram)).join(' AND '), candidates: rarest.documents };
            }
          }
        }
        break;
      }
      case 'hasAll': {
        const path = `'${jsonPath(filter.field)}'`;
        where.push(
          `(json_type(t.doc, ${path}) = 'array' AND NOT EXISTS (SELECT 1 FROM json_each(?) AS wanted WHERE NOT EXISTS ` +
            `(SELECT 1 FROM json_each(t.doc, ${path}) AS held WHERE held.type = 'text' AND held.value = wanted.value)))`,
        );
        params.push(JSON.stringify(filter.values));
        break;
      }
      default: {
        const unknown: never = filter;
        throw new Error(`Unknown filter: ${JSON.stringify(unknown)}`);
      }
    }
  }

  const name = quoteName(table);
  const inOrder = { from: `${name} AS t`, where: where.join(' AND '), params };
  if (driver === null) return inOrder;
  // CROSS JOIN keeps the full-text matches as the outer loop: each candidate is one lookup, in the
  // narrow index of the texts by `seq` (SQLite would look up the table's row, with its document).
  const narrow = textIndex ? ` INDEXED BY ${quoteName(textIndex)}` : '';
  return {
    from: `${quoteName(table + FTS_SUFFIX)}(?) AS x CROSS JOIN ${name} AS t${narrow} ON t.seq = x.rowid`,
    where: where.join(' AND '),
    params: [driver.match, ...params],
    fullText: { candidates: driver.candidates, inOrder },
  };
};
