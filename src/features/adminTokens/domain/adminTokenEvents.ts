import * as t from 'io-ts';

/**
 * An admin token was issued to the platform's backend. Holds the SHA-256 of the
 * token and a hint, never the token: it is shown once, to whoever created it.
 */
export const AdminTokenIssued = t.type({
  type: t.literal('AdminTokenIssued'),
  data: t.type({
    tokenId: t.string,
    name: t.string,
    tokenHash: t.string,
    tokenHint: t.string,
    createdAt: t.string,
  }),
});
export type AdminTokenIssued = t.TypeOf<typeof AdminTokenIssued>;

/** An admin token was revoked: refused from then on, for good. */
export const AdminTokenRevoked = t.type({
  type: t.literal('AdminTokenRevoked'),
  data: t.type({ tokenId: t.string, revokedAt: t.string }),
});
export type AdminTokenRevoked = t.TypeOf<typeof AdminTokenRevoked>;

/** Every event of an `admintoken-<id>` stream. */
export const AdminTokenEvent = t.union([AdminTokenIssued, AdminTokenRevoked]);
export type AdminTokenEvent = t.TypeOf<typeof AdminTokenEvent>;

export const adminTokenStream = (tokenId: string): string => `admintoken-${tokenId}`;
