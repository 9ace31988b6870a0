import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API key format (after GitHub's token format):
 *
 * ```
 * chr_ 3xQ9…(30 base62 random characters)…kP2 a1B2c3
 * └┬─┘ └──────────────── random ───────────┘ └checksum┘
 * ```
 *
 * - `chr_`: a fixed prefix, so a leaked key is recognisable (secret scanners,
 *   log redaction) and a key of another service is refused at once;
 * - 30 characters of `[0-9A-Za-z]` drawn from `crypto.randomBytes` by rejection
 *   sampling (a byte ≥ 248 is dropped, so every character is exactly uniform):
 *   30 · log2(62) ≈ 178.6 bits of entropy;
 * - 6 characters: the CRC-32 of the random part in base62, left-padded with `0`
 *   (62^6 > 2^32), so a mistyped or truncated key is refused without a lookup.
 *
 * 40 characters in all. Only `hashApiKey(key)` (SHA-256, hex) is stored; listings
 * show `keyHint(key)` (`chr_...` and the last 4 characters). A key has enough
 * entropy that a fast unsalted hash is the right tool (as GitHub and Stripe do):
 * there is nothing to brute-force, and a lookup by hash stays one index read.
 */
export const API_KEY_PREFIX = 'chr_';
export const API_KEY_RANDOM_LENGTH = 30;
export const API_KEY_CHECKSUM_LENGTH = 6;
export const API_KEY_LENGTH = API_KEY_PREFIX.length + API_KEY_RANDOM_LENGTH + API_KEY_CHECKSUM_LENGTH;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE = ALPHABET.length;
/** The largest multiple of 62 that fits in a byte: bytes at or above it are dropped. */
const UNBIASED_LIMIT = 256 - (256 % BASE);
const BASE62_ONLY = /^[0-9A-Za-z]*$/;

/** SHA-256 of a key (hex): the only form of a key that is ever stored. */
export type ApiKeyHash = string & { readonly __brand: 'ApiKeyHash' };
/** What a listing shows of a key: the prefix and its last 4 characters. */
export type ApiKeyHint = string & { readonly __brand: 'ApiKeyHint' };

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

const checksumOf = (random: string): string => toBase62(crc32(random) >>> 0, API_KEY_CHECKSUM_LENGTH);

/** A new API key (see the format above). Shown once, to whoever created it. */
export const generateApiKey = (): string => {
  const random = randomBase62(API_KEY_RANDOM_LENGTH);
  return `${API_KEY_PREFIX}${random}${checksumOf(random)}`;
};

/** Prefix, length, alphabet and checksum: a typo is refused without any lookup. */
export const isWellFormedApiKey = (candidate: string): boolean => {
  if (typeof candidate !== 'string' || candidate.length !== API_KEY_LENGTH) return false;
  if (!candidate.startsWith(API_KEY_PREFIX)) return false;
  const body = candidate.slice(API_KEY_PREFIX.length);
  if (!BASE62_ONLY.test(body)) return false;
  const random = body.slice(0, API_KEY_RANDOM_LENGTH);
  return checksumOf(random) === body.slice(API_KEY_RANDOM_LENGTH);
};

/** SHA-256 of the key, hex: what events and read models hold instead of the key. */
export const hashApiKey = (key: string): ApiKeyHash => hash('sha256', key, 'hex') as ApiKeyHash;

/** `chr_...` and the key's last 4 characters, so a person can tell keys apart in a listing. */
export const keyHint = (key: string): ApiKeyHint => `${API_KEY_PREFIX}...${key.slice(-4)}` as ApiKeyHint;
