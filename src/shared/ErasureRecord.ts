import * as t from 'io-ts';
import { isRight } from 'fp-ts/lib/Either.js';
import type { SubjectKind } from './PersonalData.js';

const Kind = t.keyof({ contact: null, user: null, company: null } satisfies Record<SubjectKind, null>);

/** A time as `Date.prototype.toISOString` writes it. */
const IsoTime = new t.Type<string, string, unknown>(
  'IsoTime',
  (value): value is string => typeof value === 'string',
  (value, context) =>
    typeof value === 'string' && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString() === value ? t.success(value) : t.failure(value, context),
  t.identity,
);

/**
 * One erasure, as the erasure journal (ERASURE_JOURNAL) and `chronicle erasures
 * export` write it, one JSON object a line: whose (the subject's kind and id),
 * in which company, and when. Ids and a time only, never a personal value.
 */
export const ErasureRecord = t.strict({ kind: Kind, id: t.string, companyId: t.string, erasedAt: IsoTime });
export type ErasureRecord = t.TypeOf<typeof ErasureRecord>;

/** The line of one erasure, its newline included. */
export const erasureLine = (record: ErasureRecord): string =>
  `${JSON.stringify({ kind: record.kind, id: record.id, companyId: record.companyId, erasedAt: record.erasedAt })}\n`;

/** A file of erasure lines with a line that is not one: its number, never its text (it could hold anything). */
export class MalformedErasureLineError extends Error {
  constructor(
    readonly source: string,
    readonly lineNumber: number,
  ) {
    super(`${source}, line ${lineNumber}: not an erasure (one JSON object a line: {"kind":"contact"|"user","id","companyId","erasedAt"}, erasedAt an ISO time)`);
    this.name = 'MalformedErasureLineError';
  }
}

/**
 * The erasures of a file of erasure lines, in its order; blank lines are passed
 * over (the last one ends with a newline). A line that is not an erasure throws
 * `MalformedErasureLineError`, naming `source` and the line's number.
 */
export const parseErasureLines = (text: string, source: string): ErasureRecord[] =>
  text.split('\n').flatMap((line, index) => {
    if (line.trim() === '') return [];
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new MalformedErasureLineError(source, index + 1);
    }
    const decoded = ErasureRecord.decode(value);
    if (!isRight(decoded)) throw new MalformedErasureLineError(source, index + 1);
    return [decoded.right];
  });
