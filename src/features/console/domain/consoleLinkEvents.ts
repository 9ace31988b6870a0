import * as t from 'io-ts';

/**
 * A single-use link into the customer console was issued for a company. Holds
 * the SHA-256 of the link's secret, never the secret: the link is handed once to
 * whoever asked for it (the platform's backend, an operator) and exists nowhere else.
 */
export const ConsoleLinkIssued = t.type({
  type: t.literal('ConsoleLinkIssued'),
  data: t.type({
    linkId: t.string,
    companyId: t.string,
    tokenHash: t.string,
    issuedAt: t.string,
    /** ISO 8601 UTC: the link opens nothing after it. */
    expiresAt: t.string,
  }),
});
export type ConsoleLinkIssued = t.TypeOf<typeof ConsoleLinkIssued>;

/**
 * The link was used: a console session was opened with it. Appended with the
 * revision of the issue, so of two uses at once (two tabs, two processes, two
 * machines) only one is recorded and opens a session.
 */
export const ConsoleLinkRedeemed = t.type({
  type: t.literal('ConsoleLinkRedeemed'),
  data: t.type({
    linkId: t.string,
    companyId: t.string,
    /** The session it opened (its secret lives in the browser's cookie only). */
    sessionId: t.string,
    redeemedAt: t.string,
  }),
});
export type ConsoleLinkRedeemed = t.TypeOf<typeof ConsoleLinkRedeemed>;

/** Every event of a `consolelink-<id>` stream. */
export const ConsoleLinkEvent = t.union([ConsoleLinkIssued, ConsoleLinkRedeemed]);
export type ConsoleLinkEvent = t.TypeOf<typeof ConsoleLinkEvent>;

export const consoleLinkStream = (linkId: string): string => `consolelink-${linkId}`;
