import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { sameTokenHash } from '../../../shared/consoleTokens.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type { ConsoleLinkCommand } from './consoleLinkCommands.js';
import type { ConsoleLinkError } from './consoleLinkErrors.js';
import type { ConsoleLinkEvent } from './consoleLinkEvents.js';

/** The longest a link may stay valid: a link travels through a browser, so it must not stay useful for long. */
export const CONSOLE_LINK_MAX_MINUTES = 15;
const MAX_VALIDITY_MS = CONSOLE_LINK_MAX_MINUTES * 60_000;

export type ConsoleLinkState =
  | { readonly status: 'none' }
  | { readonly status: 'issued'; readonly companyId: string; readonly tokenHash: string; readonly expiresAt: string }
  | { readonly status: 'redeemed'; readonly companyId: string; readonly tokenHash: string; readonly redeemedAt: string; readonly sessionId: string };

const issue = (command: Extract<ConsoleLinkCommand, { type: 'IssueConsoleLink' }>, state: ConsoleLinkState) => {
  if (state.status !== 'none') return E.left<ConsoleLinkError>({ kind: 'ConsoleLinkAlreadyIssued', linkId: command.linkId });
  const validity = command.expiresAt.getTime() - command.at.getTime();
  if (validity <= 0 || validity > MAX_VALIDITY_MS) return E.left<ConsoleLinkError>({ kind: 'ConsoleLinkTooLong', maxMinutes: CONSOLE_LINK_MAX_MINUTES });
  return E.right<ConsoleLinkError, readonly ConsoleLinkEvent[]>([
    {
      type: 'ConsoleLinkIssued',
      data: {
        linkId: command.linkId,
        companyId: command.companyId,
        tokenHash: command.tokenHash,
        issuedAt: toIsoTimestamp(command.at),
        expiresAt: toIsoTimestamp(command.expiresAt),
      },
    },
  ]);
};

/**
 * Redeeming: the secret must match (else the link is as unknown), then the link
 * must be unused and unexpired. A used link says so even past its expiry: the
 * person holding it learns why it opens nothing.
 */
const redeem = (command: Extract<ConsoleLinkCommand, { type: 'RedeemConsoleLink' }>, state: ConsoleLinkState) => {
  if (state.status === 'none' || !sameTokenHash(state.tokenHash, command.tokenHash)) {
    return E.left<ConsoleLinkError>({ kind: 'ConsoleLinkNotFound' });
  }
  if (state.status === 'redeemed') return E.left<ConsoleLinkError>({ kind: 'ConsoleLinkUsed', redeemedAt: state.redeemedAt });
  if (command.at.getTime() >= Date.parse(state.expiresAt)) return E.left<ConsoleLinkError>({ kind: 'ConsoleLinkExpired', expiresAt: state.expiresAt });
  return E.right<ConsoleLinkError, readonly ConsoleLinkEvent[]>([
    {
      type: 'ConsoleLinkRedeemed',
      data: { linkId: command.linkId, companyId: state.companyId, sessionId: command.sessionId, redeemedAt: toIsoTimestamp(command.at) },
    },
  ]);
};

export const consoleLinkDecider: Decider<ConsoleLinkCommand, ConsoleLinkEvent, ConsoleLinkState, ConsoleLinkError> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'IssueConsoleLink':
        return issue(command, state);
      case 'RedeemConsoleLink':
        return redeem(command, state);
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ConsoleLinkIssued':
        return { status: 'issued', companyId: event.data.companyId, tokenHash: event.data.tokenHash, expiresAt: event.data.expiresAt };
      case 'ConsoleLinkRedeemed':
        return state.status === 'none'
          ? state
          : {
              status: 'redeemed',
              companyId: state.companyId,
              tokenHash: state.tokenHash,
              redeemedAt: event.data.redeemedAt,
              sessionId: event.data.sessionId,
            };
      default:
        return assertNever(event);
    }
  },
};
