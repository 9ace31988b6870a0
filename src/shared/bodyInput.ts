import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import type { InputProblem } from './InputProblem.js';
import { formatValidationErrors } from './validationReporter.js';

const isObject = (body: unknown): body is Record<string, unknown> => typeof body === 'object' && body !== null && !Array.isArray(body);

const notAnObject: InputProblem = { kind: 'Invalid', details: { '(body)': 'must be a JSON object' } };

const decodeWith = <A>(codec: t.Decoder<unknown, A>, body: unknown): E.Either<InputProblem, A> => {
  const decoded = codec.decode(body);
  return E.isLeft(decoded) ? E.left({ kind: 'Invalid', details: formatValidationErrors(decoded.left) }) : E.right(decoded.right);
};

/**
 * A creating request's body, as the spec's 422s report it: not an object; then
 * the `required` fields that are absent or null, alone (`Missing required
 * fields`); then every other problem, one message per field (`Validation failed`).
 */
export const validateCreateBody = <A>(codec: t.Decoder<unknown, A>, required: readonly string[], body: unknown): E.Either<InputProblem, A> => {
  if (!isObject(body)) return E.left(notAnObject);
  const missing = required.filter((field) => body[field] === undefined || body[field] === null);
  if (missing.length > 0) return E.left({ kind: 'MissingFields', fields: missing });
  return decodeWith(codec, body);
};

/** A changing request's body: an object with at least one of `fields`, each valid. */
export const validateChangeBody = <A>(codec: t.Decoder<unknown, A>, fields: readonly string[], body: unknown): E.Either<InputProblem, A> => {
  if (!isObject(body)) return E.left(notAnObject);
  if (!fields.some((field) => body[field] !== undefined)) {
    return E.left({ kind: 'Invalid', details: { '(body)': `send at least one of ${fields.join(', ')}` } });
  }
  return decodeWith(codec, body);
};
