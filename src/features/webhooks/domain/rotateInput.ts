import * as E from 'fp-ts/lib/Either.js';
import type { InputProblem } from '../../../shared/InputProblem.js';

/** The overlap a rotation gets when none is asked for, and the longest one allowed (hours). */
export const DEFAULT_OVERLAP_HOURS = 24;
export const MAX_OVERLAP_HOURS = 168;

/**
 * The body of a secret rotation: `{overlapHours}`, an integer from 0 to 168, 24 when
 * absent (`{}`). Anything else is refused with what is wrong.
 */
export const validateRotate = (body: unknown): E.Either<InputProblem, { readonly overlapHours: number }> => {
  if (body === undefined) return E.right({ overlapHours: DEFAULT_OVERLAP_HOURS });
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return E.left({ kind: 'Invalid', details: { '(body)': 'the body must be a JSON object' } });
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((name) => name !== 'overlapHours');
  if (unknown.length > 0) return E.left({ kind: 'Invalid', details: Object.fromEntries(unknown.map((name) => [name, `${name} is not a field of a rotation`])) });
  const overlap = fields.overlapHours;
  if (overlap === undefined) return E.right({ overlapHours: DEFAULT_OVERLAP_HOURS });
  if (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 0 || overlap > MAX_OVERLAP_HOURS) {
    return E.left({ kind: 'Invalid', details: { overlapHours: `overlapHours must be a whole number of hours from 0 to ${MAX_OVERLAP_HOURS}` } });
  }
  return E.right({ overlapHours: overlap });
};
