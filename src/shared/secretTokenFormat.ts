import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * The format of Chronicle's secret tokens (API keys, admin tokens), after
 * GitHub's token format:
 *
 * ```
 * chr_ 3xQ9…(30 base62 random characters)…kP2 a1B2c3
 * └┬─┘ └──────────────── random ───────────┘ └checksum┘
 * ```
 *
 * - a fixed prefix per kind of token, so a leaked one is recognisable (secret
 *   scanners, log redaction) and a token of another kind, or of another service,
 *   is refused at once without a lookup;
 * - 30 characters of `[0-9A-Za-z]` drawn from `crypto.randomBytes` by rejection
 *   sampling (a byte ≥ 248 is dropped, so every character is exactly uniform):
 *   30 · log2(62) ≈ 178.6 bits of entropy;
 * - 6 characters: the CRC-32 of the random part in base62, left-padded with `0`
 *   (62^6 > 2^32), so a mistyped or truncated token is refused without a lookup.
 *
 * Only its SHA-256 (hex) is stored; listings show a hint (the prefix and the last
 * 4 characters). A token has enough entropy that a fast unsalted hash is the
 * right tool (as GitHub and Stripe do): there is nothing to brute-force, and a
 * lookup by hash stays one index read.
 */
export interface SecretTokenFormat {
  readonly prefix: string;
  /** Characters in all: the prefix, the random part and the checksum. */
  readonly length: number;
  /** A new token, shown once to whoever created it. */
  generate(): string;
  /** Prefix, length, alphabet and checksum: a typo is refused without any lookup. */
  isWellFormed(candidate: string): boolean;
  /** SHA-256 of the token, hex: the only form of it that is ever stored. */
  hash(token: string): string;
  /** The prefix, `...` and the token's last 4 characters, so a person can tell tokens apart in a listing. */
  hint(token: string): string;
}

export const TOKEN_RANDOM_LENGTH = 30;
export const TOKEN_CHECKSUM_LENGTH = 6;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE = ALPHABET.length;
/** The largest multiple of 62 that fits in a byte: bytes at or above it are dropped. */
const UNBIASED_LIMIT = 256 - (256 % BASE);
const BASE62_ONLY = /^[0-9A-Za-z]*$/;

const randomBase62 = (length: number): string => {
  let out = '';
  while (out.length < length) {
    // 248/256 of the bytes are kept; ask for a few more than needed.
    for (const byte of randomBytes(length - out.length + 8)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += ALPHABET[byte % BASE];
      if (out.length === length) break;
    }
  }
  return out;
};

const toBase62 = (value: number, width: number): string => {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[rest % BASE]! + out;
    rest = Math.floor(rest / BASE);
  }
  return out;
};

const checksumOf = (random: string): string => toBase62(crc32(random) >>> 0, TOKEN_CHECKSUM_LENGTH);

/** The format of tokens that start with `prefix` (which ends with `_`, and starts no other kind's). */
export const secretTokenFormat = (prefix: string): SecretTokenFormat => {
  const length = prefix.length + TOKEN_RANDOM_LENGTH + TOKEN_CHECKSUM_LENGTH;
  return {
    prefix,
    length,
    generate() {
      const random = randomBase62(TOKEN_RANDOM_LENGTH);
      return `${prefix}${random}${checksumOf(random)}`;
    },
    isWellFormed(candidate) {
      if (typeof candidate !== 'string' || candidate.length !== length || !candidate.startsWith(prefix)) return false;
      const body = candidate.slice(prefix.length);
      if (!BASE62_ONLY.test(body)) return false;
      return checksumOf(body.slice(0, TOKEN_RANDOM_LENGTH)) === body.slice(TOKEN_RANDOM_LENGTH);
    },
    hash: (token) => hash('sha256', token, 'hex'),
    hint: (token) => `${prefix}...${token.slice(-4)}`,
  };
};
