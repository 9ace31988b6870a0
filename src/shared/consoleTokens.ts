import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The console's two bearer secrets, each `<id>.<secret>`:
 *
 * - a **link token** (`<linkId>.<secret>`), in the single-use link's query string;
 * - a **session token** (`<sessionId>.<secret>`), in the session cookie only.
 *
 * The secret is 32 random bytes in base64url (256 bits: nothing to brute-force,
 * so a fast unsalted hash is the right tool, as for API keys). Only its SHA-256
 * is stored, in the link's events or the session's record. The id says which
 * record to compare with, so a check is one lookup.
 */
const SECRET_BYTES = 32;
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** SHA-256 of a console secret (hex): the only form of it that is stored. */
export type ConsoleTokenHash = string & { readonly __brand: 'ConsoleTokenHash' };

export interface ConsoleToken {
  readonly id: string;
  readonly secret: string;
}

/** A new secret (base64url, 43 characters). */
export const newConsoleSecret = (): string => randomBytes(SECRET_BYTES).toString('base64url');

export const formatConsoleToken = (token: ConsoleToken): string => `${token.id}.${token.secret}`;

/** `<uuid>.<43 base64url characters>`, else null: anything else is refused without a lookup. */
export const parseConsoleToken = (text: unknown): ConsoleToken | null => {
  if (typeof text !== 'string' || text.length > 100) return null;
  const dot = text.indexOf('.');
  const id = text.slice(0, dot);
  const secret = text.slice(dot + 1);
  return dot > 0 && ID.test(id) && SECRET.test(secret) ? { id, secret } : null;
};

export const hashConsoleSecret = (secret: string): ConsoleTokenHash => hash('sha256', secret, 'hex') as ConsoleTokenHash;

/** Compares two hashes in constant time (both hex SHA-256). */
export const sameTokenHash = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * The session's CSRF token: an HMAC of a fixed label under the session's secret.
 * A page of the session carries it in every form; a request from another site
 * cannot know it (it would need the HttpOnly cookie's secret), and it needs no
 * storage of its own.
 */
export const csrfTokenOf = (sessionSecret: string): string =>
  createHmac('sha256', sessionSecret).update('chronicle console csrf').digest('base64url');

/** True when `presented` is the session's CSRF token (constant time). */
export const isCsrfToken = (sessionSecret: string, presented: unknown): boolean =>
  typeof presented === 'string' && sameTokenHash(csrfTokenOf(sessionSecret), presented);
