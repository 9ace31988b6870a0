import { createHmac } from 'node:crypto';
import { inspect } from 'node:util';
import * as E from 'fp-ts/lib/Either.js';

const KEY_BYTES = 32;
const HEX = /^[0-9a-fA-F]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}$/;

/**
 * A 256-bit key the operator gives (SECRETS_KEY), held so that it never shows:
 * logging, printing or serialising it gives `[SecretKey <id>]`, never its bytes.
 * Its `id` is derived from it (an HMAC of a fixed label, 8 characters of
 * base64url): stored values name the key that sealed them without revealing it,
 * and the same key always has the same id, with no id for the operator to manage.
 */
export class SecretKey {
  readonly #bytes: Buffer;
  readonly id: string;

  private constructor(bytes: Buffer) {
    this.#bytes = bytes;
    this.id = createHmac('sha256', bytes).update('chronicle secrets key id').digest().subarray(0, 6).toString('base64url');
  }

  /** The key from its text: 64 hex digits, or the base64 (or base64url) of 32 bytes. Left: what is wrong, never the value. */
  static fromText(text: string): E.Either<string, SecretKey> {
    const trimmed = text.trim();
    const bytes = HEX.test(trimmed) ? Buffer.from(trimmed, 'hex') : BASE64.test(trimmed) ? Buffer.from(trimmed, 'base64') : null;
    if (bytes === null || bytes.length !== KEY_BYTES) {
      return E.left('must be 32 bytes written as 64 hex digits or in base64 (e.g. `openssl rand -base64 32`)');
    }
    return E.right(new SecretKey(bytes));
  }

  /** The key's bytes, for the cipher alone. */
  bytes(): Buffer {
    return this.#bytes;
  }

  toString(): string {
    return `[SecretKey ${this.id}]`;
  }

  toJSON(): string {
    return this.toString();
  }

  [inspect.custom](): string {
    return this.toString();
  }
}
