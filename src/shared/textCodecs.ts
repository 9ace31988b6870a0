import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { NAME_CHARACTER_MESSAGES, nameCharacterProblem } from './nameCharacters.js';

const isString = (u: unknown): u is string => typeof u === 'string';

/** A required string (never null): trimmed, 1 to `max` characters. */
export const requiredText = (field: string, max: number) =>
  new t.Type<string, string, unknown>(
    `${field} (1 to ${max} characters)`,
    isString,
    (u, c) => {
      if (u === null) return t.failure(u, c, `${field} cannot be null`);
      if (typeof u !== 'string') return t.failure(u, c, `${field} must be a string`);
      const value = u.trim();
      return value.length >= 1 && value.length <= max
        ? t.success(value)
        : t.failure(u, c, `${field} must be 1 to ${max} characters`);
    },
    t.identity,
  );

/** An optional string: trimmed, at most `max` characters; null or empty → null (no value). */
export const optionalText = (field: string, max: number) =>
  new t.Type<string | null, string | null, unknown>(
    `${field} (at most ${max} characters)`,
    (u): u is string | null => u === null || isString(u),
    (u, c) => {
      if (u === null) return t.success(null);
      if (typeof u !== 'string') return t.failure(u, c, `${field} must be a string`);
      const value = u.trim();
      if (value === '') return t.success(null);
      return value.length <= max ? t.success(value) : t.failure(u, c, `${field} must be at most ${max} characters`);
    },
    t.identity,
  );

/**
 * A name-like field on input (a contact's name, a deal's title): `codec`, then the
 * rule of nameCharacters (no bidirectional override or isolate, a visible
 * character), its message after the field's name. Events hold these fields as
 * plain strings, so values stored before the rule keep loading.
 */
const asName = <A extends string | null>(field: string, codec: t.Type<A, A, unknown>) =>
  new t.Type<A, A, unknown>(
    codec.name,
    (u): u is A => codec.is(u) && (u === null || nameCharacterProblem(u) === null),
    (u, c) => {
      const decoded = codec.validate(u, c);
      if (E.isLeft(decoded) || decoded.right === null) return decoded;
      const problem = nameCharacterProblem(decoded.right);
      return problem === null ? decoded : t.failure(u, c, `${field} ${NAME_CHARACTER_MESSAGES[problem]}`);
    },
    t.identity,
  );

/** A required name: as `requiredText`, and the rule of nameCharacters. */
export const requiredName = (field: string, max: number) => asName(field, requiredText(field, max));

/** An optional name: as `optionalText`, and the rule of nameCharacters for a value. */
export const optionalName = (field: string, max: number) => asName(field, optionalText(field, max));
