import type { ConsoleTokenHash } from '../../../shared/consoleTokens.js';

/** Issue a link whose secret the caller generated; the command carries only its hash. The caller has checked the company exists. */
export interface IssueConsoleLink {
  readonly type: 'IssueConsoleLink';
  readonly linkId: string;
  readonly companyId: string;
  readonly tokenHash: ConsoleTokenHash;
  readonly at: Date;
  readonly expiresAt: Date;
}

/** Use the link: `tokenHash` is the hash of the secret presented, compared with the one issued. */
export interface RedeemConsoleLink {
  readonly type: 'RedeemConsoleLink';
  readonly linkId: string;
  readonly tokenHash: ConsoleTokenHash;
  readonly sessionId: string;
  readonly at: Date;
}

export type ConsoleLinkCommand = IssueConsoleLink | RedeemConsoleLink;
