import { parseInstant } from '../../shared/instant.js';
import { validationFailed } from './listQuery.js';

type QueryValue = string | string[] | undefined;

/**
 * The `asOf` query parameter of a time-travel read, in canonical form (ISO 8601
 * UTC with milliseconds), or undefined when absent or empty. The instant rule of
 * every other parameter (`parseInstant`: a date, or a date-time with a zone);
 * anything else, or the parameter twice, throws the same 422 the list parameters do.
 */
export const decodeAsOf = (query: Record<string, QueryValue>): string | undefined => {
  const raw = query.asOf;
  if (Array.isArray(raw)) throw validationFailed({ asOf: 'asOf must be given once' });
  if (raw === undefined || raw === '') return undefined;
  const instant = parseInstant(raw);
  if (instant === null) throw validationFailed({ asOf: 'asOf must be an ISO 8601 date, or a date-time with a zone' });
  return instant;
};
