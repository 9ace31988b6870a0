import * as t from 'io-ts';

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
