/**
 * What PostgreSQL cannot hold, and what the read models store instead.
 *
 * PostgreSQL text (and jsonb strings) hold no NUL character, and jsonb refuses a
 * lone UTF-16 surrogate; JavaScript strings (so documents built from a client's
 * JSON) may hold both. A document that holds either is stored as jsonb with each
 * one replaced by U+FFFD (what filters see), and its exact JSON text beside it
 * (`raw`, read back instead of the jsonb): nothing a client sends stops the
 * projector, and every document reads back as it was written.
 */

const REPLACEMENT = '\uFFFD';

/** The escapes `JSON.stringify` writes for a NUL and for a lone surrogate (a paired one it writes as is), after the backslashes before them. */
const UNSTORABLE_ESCAPE = /(\\+)u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})/g;

/**
 * A document's JSON text as jsonb takes it: each `\u0000` and lone-surrogate
 * escape made `\ufffd`. An escape follows an odd number of backslashes (an even
 * number is escaped backslashes followed by the letter u).
 */
export const storableJson = (json: string): string =>
  json.includes('\\u')
    ? json.replace(UNSTORABLE_ESCAPE, (escape: string, slashes: string) => (slashes.length % 2 === 1 ? `${slashes}ufffd` : escape))
    : json;

// eslint-disable-next-line no-control-regex -- matching NUL is the point
const NUL = /\u0000/g;

/** A text parameter as PostgreSQL takes it: NUL as U+FFFD, as in stored documents (the driver sends a lone surrogate as U+FFFD too). */
export const storableText = (text: string): string => (text.includes('\u0000') ? text.replace(NUL, REPLACEMENT) : text);

/** A NUL or a lone surrogate: what a stored searched text holds as `A` (see `searchedText`). */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const UNSEARCHABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const EVERY_UNSEARCHABLE = new RegExp(UNSEARCHABLE.source, 'g');

/**
 * A searched field's stored text: lower-cased by JavaScript (as the memory
 * adapter compares), with each NUL and lone surrogate as `A`. No lower-cased
 * search text holds an `A` (nothing lower-cases to it), so no search matches
 * across one: the memory adapter's NUL separates too, and a search holding a NUL
 * or a lone surrogate is answered apart (`isSearchable`).
 */
export const searchedText = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  return value.toLowerCase().replace(EVERY_UNSEARCHABLE, 'A');
};

/** Whether a lower-cased search text can match stored texts (no NUL, no lone surrogate). */
export const isSearchable = (needle: string): boolean => !UNSEARCHABLE.test(needle);
