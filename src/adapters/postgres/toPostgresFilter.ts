import type { Filter } from '../../application/ports/ReadModelStore.js';
import type { ReadModelLayout } from '../readModels/readModelLayout.js';
import {
  cutToIndexedChars,
  fieldText,
  fieldType,
  indexedText,
  pathLiteral,
  typedString,
  typedText,
  withinIndexedChars,
} from './postgresReadModelLayout.js';
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

/** Equality with a typed text, through the field's indexed text (and the whole text when the value is longer than an index holds). */
const typedEquals = (field: string, typed: string, params: SqlParams): string => {
  const indexed = `${indexedText('t.doc', field)} COLLATE "C"`;
  if (withinIndexedChars(typed)) return `${indexed} = ${params.add(typed)}`;
  return `${indexed} = ${params.add(cutToIndexedChars(typed))} AND ${typedText('t.doc', field)} COLLATE "C" = ${params.add(typed)}`;
};

/** The lowest and the next-after-highest typed text of a string (`:` then `;`). */
const STRINGS_FROM = `'${typedString('')}'`;
const STRINGS_BEFORE = "'string;'";

/**
 * A range on strings: the field's indexed text between the bound and the end of
 * the strings. A bound shorter than an index holds compares exactly on the cut
 * text (a text cut to 400 characters orders against a shorter one as the whole
 * text does); a longer one is compared whole as well.
 */
const stringRange = (field: string, op: 'gt' | 'gte' | 'lt' | 'lte', typed: string, params: SqlParams): string => {
  const indexed = `${indexedText('t.doc', field)} COLLATE "C"`;
  const operator = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op];
  const upward = op === 'gt' || op === 'gte';
  if (withinIndexedChars(typed)) {
    const bound = params.add(typed);
    return upward ? `${indexed} ${operator} ${bound} AND ${indexed} < ${STRINGS_BEFORE}` : `${indexed} >= ${STRINGS_FROM} AND ${indexed} ${operator} ${bound}`;
  }
  const cut = params.add(cutToIndexedChars(typed));
  const whole = `${typedText('t.doc', field)} COLLATE "C" ${operator} ${params.add(typed)}`;
  return upward ? `${indexed} >= ${cut} AND ${indexed} < ${STRINGS_BEFORE} AND ${whole}` : `${indexed} >= ${STRINGS_FROM} AND ${indexed} <= ${cut} AND ${whole}`;
};

/** A comparison with a number: numbers only, compared as numbers (jsonb compares two numbers as numeric). */
const numberCompares = (field: string, operator: string, value: number, params: SqlParams): string =>
  `${fieldType('t.doc', field)} = 'number' AND (t.doc #> ${pathLiteral(field)}) ${operator} ${params.add(JSON.stringify(value))}::jsonb`;

/**
 * The filters of a list query as a SQL condition on the read model's table `t`,
 * with the meaning of the memory adapter's predicates (`compileFilter.ts`); null
 * when nothing can match.
 *
 * - `eq`, `gt`, …: on the field's typed text (`typedText`, as its index holds it),
 *   so a string bound compares with strings only, by code point (`COLLATE "C"`;
 *   JavaScript compares UTF-16 units: the two differ only between characters above
 *   U+FFFF and U+E000–U+FFFF), a boolean equals only that boolean, and null matches
 *   null and missing; a number bound compares with numbers only, as numbers (jsonb
 *   compares two numbers as numeric; not through an index).
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
        const { value } = filter;
        const indexed = `${indexedText('t.doc', filter.field)} COLLATE "C"`;
        if (value === null) where.push(`${indexed} IS NULL`);
        else if (typeof value === 'string') where.push(typedEquals(filter.field, typedString(storableText(value)), params));
        else if (typeof value === 'boolean') where.push(`${indexed} = 'boolean:${String(value)}'`);
        else if (Number.isFinite(value)) where.push(numberCompares(filter.field, '=', value, params));
        else return null;
        break;
      }
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const { value } = filter;
        if (typeof value === 'string') where.push(stringRange(filter.field, filter.op, typedString(storableText(value)), params));
        else if (Number.isFinite(value)) where.push(numberCompares(filter.field, { gt: '>', gte: '>=', lt: '<', lte: '<=' }[filter.op], value, params));
        else {
          // NaN compares false with everything; ±Infinity has no JSON number to compare with.
          if (Number.isNaN(value) || (value > 0) === (filter.op === 'gt' || filter.op === 'gte')) return null;
          where.push(`${fieldType('t.doc', filter.field)} = 'number'`);
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
