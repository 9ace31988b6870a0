import { secretTokenFormat, TOKEN_CHECKSUM_LENGTH, TOKEN_RANDOM_LENGTH } from './secretTokenFormat.js';

/**
 * API key format: `chr_`, 30 random base62 characters and a 6-character
 * checksum, 40 characters in all (see `secretTokenFormat`). Only
 * `hashApiKey(key)` is stored; listings show `keyHint(key)`.
 */
const format = secretTokenFormat('chr_');

export const API_KEY_PREFIX = format.prefix;
export const API_KEY_RANDOM_LENGTH = TOKEN_RANDOM_LENGTH;
export const API_KEY_CHECKSUM_LENGTH = TOKEN_CHECKSUM_LENGTH;
export const API_KEY_LENGTH = format.length;

/** SHA-256 of a key (hex): the only form of a key that is ever stored. */
export type ApiKeyHash = string & { readonly __brand: 'ApiKeyHash' };
/** What a listing shows of a key: the prefix and its last 4 characters. */
export type ApiKeyHint = string & { readonly __brand: 'ApiKeyHint' };

/** A new API key. Shown once, to whoever created it. */
export const generateApiKey = (): string => format.generate();

/** Prefix, length, alphabet and checksum: a typo is refused without any lookup. */
export const isWellFormedApiKey = (candidate: string): boolean => format.isWellFormed(candidate);

/** SHA-256 of the key, hex: what events and read models hold instead of the key. */
export const hashApiKey = (key: string): ApiKeyHash => format.hash(key) as ApiKeyHash;

/** `chr_...` and the key's last 4 characters, so a person can tell keys apart in a listing. */
export const keyHint = (key: string): ApiKeyHint => format.hint(key) as ApiKeyHint;
