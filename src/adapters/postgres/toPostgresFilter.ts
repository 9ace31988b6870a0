import type { Filter } from '../../application/ports/ReadModelStore.js';
import type { ReadModelLayout } from '../sqlite/readModelLayout.js';
import { fieldText, fieldType, pathLiteral } from './postgresReadModelLayout.js';
import { isSearchable, storableText } from './storableText.js';

/** Shortest search a trigram index answers; shorter ones are checked on the company's texts. */
export const TRIGRAM = 3;

/** The values of a statement's placeholders, numbered as they are added. */
export class SqlParams {
  readonly values: unknown[] = [];

  /** Adds a value and answers its placeholder (`$1`, `$2`, …). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** How a search of fields without a stored text lower-cases them in SQL. */
export interface LowerCasing {
  /**
   * `lower(x COLLATE "und-x-icu")`: ICU's full case mapping of the root locale, as
   * JavaScript's `toLowerCase` (which is ICU too); they differ only on letters newer
   * than the server's ICU. Null when the server has no ICU: `lower(x)`, by the
   * database's locale, one character at a time.
   */
  readonly icuCollation: string | null;
}

/** A literal `LIKE` pattern for a substring: `\`, `%` and `_` escaped with `\` (LIKE's default escape). */
const likeSubstring = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

const lowerCased = (text: string, casing: LowerCasing): string =>
  casing.icuCollation === null ? `lower(${text})` : `lower(${text} COLLATE "${casing.icuCollation.replace(/"/g, '')}")`;

const searchClause = (filter: Extract<Filter, { op: 'contains' }>, layout: ReadModelLayout, params: SqlParams, casing: LowerCasing): string | null => {
  const needle = filter.text.toLowerCase();
  // The memory adapter joins the fields with NUL: a search holding one matches nothing (nor one of a lone surrogate, see storableText.ts).
  if (!isSearchable(needle)) return null;
  const trigrams = [...needle].length >= TRIGRAM;
  let like: string | null = null;
  let plain: string | null = null;
  const checks = filter.fields.map((field) => {
    const column = layout.search.indexOf(field);
    if (column >= 0) {
      // `LIKE` can be answered by the trigram index; a shorter text has no trigram to look up.
      if (trigrams) return `t.s${column} LIKE ${(like ??= params.add(likeSubstring(needle)))}`;
      return `strpos(t.s${column}, ${(plain ??= params.add(needle))}) > 0`;
    }
    const text = fieldText('t.doc', field);
    return `(${fieldType('t.doc', field)} = 'string' AND strpos(${lowerCased(text, casing)}, ${(plain ??= params.add(needle))}) > 0)`;
  });
  return checks.length === 1 ? checks[0]! : `(${checks.join(' OR ')})`;
};

/**
 * The filters of a list query as a SQL condition on the read model's table `t`,
 * with the meaning of the memory adapter's predicates (`compileFilter.ts`); null
 * when nothing can match.
 *
 * - `eq`, `gt`, …: a string bound compares with strings only (`jsonb_typeof`), by
 *   code point (`COLLATE "C"` on the field's text, as the field's index is built;
 *   JavaScript compares UTF-16 units: the two differ only between characters above
 *   U+FFFF and U+E000–U+FFFF); a number bound with numbers only, as numbers (jsonb
 *   compares them as numeric); a boolean as its JSON text; null matches null and
 *   missing (`#>>` answers NULL for both).
 * - `contains`: the search text lower-cased by JavaScript, then in the stored
 *   lower-cased texts of the searched fields: with 3 or more characters (code
 *   points) a `LIKE '%…%'` with `\`, `%` and `_` escaped, which the trigram index
 *   answers; shorter, `strpos`, checked on the company's texts. Fields without a
 *   stored text (not in the projection's `search`) are lower-cased in SQL
 *   (`LowerCasing`).
 * - `hasAll`: the field is an array that contains every value (jsonb `@>`).
 */
export const toPostgresFilter = (
  layout: ReadModelLayout,
  /** The placeholder of the company's key. */
  company: string,
  filters: readonly Filter[],
  params: SqlParams,
  casing: LowerCasing,
): string | null => {
  const where: string[] = [`t.company = ${company}`];
  for (const filter of filters) {
    switch (filter.op) {
      case 'eq': {
        const text = fieldText('t.doc', filter.field);
        const type = fieldType('t.doc', filter.field);
        const { value } = filter;
        if (value === null) where.push(`${text} IS NULL`);
        else if (typeof value === 'string') where.push(`${text} COLLATE "C" = ${params.add(storableText(value))} AND ${type} = 'string'`);
        else if (typeof value === 'boolean') where.push(`${text} COLLATE "C" = '${String(value)}' AND ${type} = 'boolean'`);
        else if (Number.isFinite(value)) where.push(`${type} = 'number' AND (t.doc #> ${pathLiteral(filter.field)}) = ${params.add(JSON.stringify(value))}::jsonb`);
        else return null;
        break;
      }
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const operator = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[filter.op];
        const type = fieldType('t.doc', filter.field);
        const { value } = filter;
        if (typeof value === 'string') {
          where.push(`${type} = 'string' AND ${fieldText('t.doc', filter.field)} COLLATE "C" ${operator} ${params.add(storableText(value))}`);
        } else if (Number.isFinite(value)) {
          where.push(`${type} = 'number' AND (t.doc #> ${pathLiteral(filter.field)}) ${operator} ${params.add(JSON.stringify(value))}::jsonb`);
        } else {
          // NaN compares false with everything; ±Infinity has no JSON number to compare with.
          if (Number.isNaN(value) || (value > 0) === (filter.op === 'gt' || filter.op === 'gte')) return null;
          where.push(`${type} = 'number'`);
        }
        break;
      }
      case 'contains': {
        if (filter.text === '') break;
        if (filter.fields.length === 0) return null;
        const clause = searchClause(filter, layout, params, casing);
        if (clause === null) return null;
        where.push(clause);
        break;
      }
      case 'hasAll': {
        const values = JSON.stringify(filter.values.map(storableText));
        where.push(`${fieldType('t.doc', filter.field)} = 'array' AND (t.doc #> ${pathLiteral(filter.field)}) @> ${params.add(values)}::jsonb`);
        break;
      }
      default: {
        const unknown: never = filter;
        throw new Error(`Unknown filter: ${JSON.stringify(unknown)}`);
      }
    }
  }
  return where.join(' AND ');
};
