import { secretTokenFormat } from './secretTokenFormat.js';

/**
 * Admin token format: `chradm_`, 30 random base62 characters and a 6-character
 * checksum, 43 characters in all (see `secretTokenFormat`). Its own prefix, so an
 * admin token is told from a customer's API key (`chr_`) at a glance and by secret
 * scanners, and each is refused on the other's API without a lookup. Only
 * `hashAdminToken(token)` is stored; listings show `adminTokenHint(token)`.
 */
const format = secretTokenFormat('chradm_');

export const ADMIN_TOKEN_PREFIX = format.prefix;
export const ADMIN_TOKEN_LENGTH = format.length;

/** SHA-256 of an admin token (hex): the only form of it that is ever stored. */
export type AdminTokenHash = string & { readonly __brand: 'AdminTokenHash' };
/** What a listing shows of a token: the prefix and its last 4 characters. */
export type AdminTokenHint = string & { readonly __brand: 'AdminTokenHint' };

/** A new admin token. Shown once, to whoever created it. */
export const generateAdminToken = (): string => format.generate();

export const isWellFormedAdminToken = (candidate: string): boolean => format.isWellFormed(candidate);

export const hashAdminToken = (token: string): AdminTokenHash => format.hash(token) as AdminTokenHash;

export const adminTokenHint = (token: string): AdminTokenHint => format.hint(token) as AdminTokenHint;
