import * as E from 'fp-ts/lib/Either.js';
import { HttpError } from '../HttpError.js';
import { parseInstant } from '../../shared/instant.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export type QueryValue = string | string[] | undefined;

/** One value of a query parameter; a repeated parameter is an error, not a silent pick. */
export const singleParam = (name: string, value: QueryValue, problems: Record<string, string>): string | undefined => {
  if (Array.isArray(value)) {
    problems[name] = `${name} must be given once`;
    return undefined;
  }
  return value === undefined || value === '' ? undefined : value;
};

/** An integer parameter within bounds; absent: `fallback`; out of range or not a number: a problem named after it. */
export const integerParam = (
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
  problems: Record<string, string>,
): number => {
  if (raw === undefined) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    problems[name] = max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer of at least ${min}` : `${name} must be an integer from ${min} to ${max}`;
    return fallback;
  }
  return n;
};

export interface ListParams {
  readonly page: number;
  readonly limit: number;
  readonly text: Record<string, string | undefined>;
  readonly instants: Record<string, string | undefined>;
  readonly enums: Record<string, string | undefined>;
}

/**
 * Decodes `page`, `limit` and the named text and instant parameters of a list
 * request. Anything out of range or malformed is a 422 naming each parameter:
 * a client that asks for 500 rows learns that 200 is the maximum instead of
 * silently getting fewer.
 */
export const decodeListParams = (
  query: Record<string, QueryValue>,
  names: {
    readonly text?: readonly string[];
    readonly instants?: readonly string[];
    /** Parameters that take one of a few values. */
    readonly enums?: Readonly<Record<string, readonly string[]>>;
  },
): E.Either<Record<string, string>, ListParams> => {
  const problems: Record<string, string> = {};
  const page = integerParam('page', singleParam('page', query.page, problems), 1, 1, Number.MAX_SAFE_INTEGER, problems);
  const limit = integerParam('limit', singleParam('limit', query.limit, problems), DEFAULT_LIMIT, 1, MAX_LIMIT, problems);
  const text: Record<string, string | undefined> = {};
  for (const name of names.text ?? []) {
    const value = singleParam(name, query[name], problems);
    if (value !== undefined && value.length > 200) problems[name] = `${name} must be at most 200 characters`;
    else text[name] = value;
  }
  const instants: Record<string, string | undefined> = {};
  for (const name of names.instants ?? []) {
    const raw = singleParam(name, query[name], problems);
    if (raw === undefined) continue;
    const instant = parseInstant(raw);
    if (instant === null) problems[name] = `${name} must be an ISO 8601 date, or a date-time with a zone`;
    else instants[name] = instant;
  }
  const enums: Record<string, string | undefined> = {};
  for (const [name, allowed] of Object.entries(names.enums ?? {})) {
    const value = singleParam(name, query[name], problems);
    if (value === undefined) continue;
    if (allowed.includes(value)) enums[name] = value;
    else problems[name] = `${name} must be one of ${allowed.join(', ')}`;
  }
  return Object.keys(problems).length > 0 ? E.left(problems) : E.right({ page, limit, text, instants, enums });
};

/** Throws the spec's 422 for a failed decode. */
export const validationFailed = (details: Record<string, unknown>): HttpError =>
  new HttpError(422, 'Validation failed', 'One or more fields are invalid.', { details });

export const pageMeta = (page: number, limit: number, total: number) => ({
  page,
  limit,
  total,
  totalPages: Math.ceil(total / limit),
});
