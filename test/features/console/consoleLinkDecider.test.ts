import { consoleLinkDecider } from '../../../src/features/console/domain/consoleLinkDecider.js';
import type { IssueConsoleLink, RedeemConsoleLink } from '../../../src/features/console/domain/consoleLinkCommands.js';
import type { ConsoleLinkEvent } from '../../../src/features/console/domain/consoleLinkEvents.js';
import { hashConsoleSecret } from '../../../src/shared/consoleTokens.js';
import { specFor } from '../../support/givenWhenThen.js';

const spec = specFor(consoleLinkDecider);
const at = new Date('2026-03-01T10:00:00.000Z');
const minutes = (n: number): Date => new Date(at.getTime() + n * 60_000);
const SECRET = 'x'.repeat(43);

const issue: IssueConsoleLink = { type: 'IssueConsoleLink', linkId: 'l-1', companyId: 'co-1', tokenHash: hashConsoleSecret(SECRET), at, expiresAt: minutes(15) };
const issued: ConsoleLinkEvent = {
  type: 'ConsoleLinkIssued',
  data: { linkId: 'l-1', companyId: 'co-1', tokenHash: hashConsoleSecret(SECRET), issuedAt: '2026-03-01T10:00:00.000Z', expiresAt: '2026-03-01T10:15:00.000Z' },
};
const redeem: RedeemConsoleLink = { type: 'RedeemConsoleLink', linkId: 'l-1', tokenHash: hashConsoleSecret(SECRET), sessionId: 's-1', at: minutes(1) };
const redeemed: ConsoleLinkEvent = {
  type: 'ConsoleLinkRedeemed',
  data: { linkId: 'l-1', companyId: 'co-1', sessionId: 's-1', redeemedAt: '2026-03-01T10:01:00.000Z' },
};

describe('console link decider', () => {
  describe('given no link', () => {
    it('issues it with the hash of its secret, valid until its expiry', () => spec.given().when(issue).then(issued));
    it('refuses a link valid for more than 15 minutes', () =>
      spec.given().when({ ...issue, expiresAt: minutes(16) }).thenError({ kind: 'ConsoleLinkTooLong', maxMinutes: 15 }));
    it('refuses a link that would expire as it is issued', () =>
      spec.given().when({ ...issue, expiresAt: at }).thenError({ kind: 'ConsoleLinkTooLong', maxMinutes: 15 }));
    it('opens nothing', () => spec.given().when(redeem).thenError({ kind: 'ConsoleLinkNotFound' }));
  });

  describe('given an issued link', () => {
    it('is used once, opening the session named', () => spec.given(issued).when(redeem).then(redeemed));
    it('opens nothing with another secret, and says no more than for an unknown link', () =>
      spec.given(issued).when({ ...redeem, tokenHash: hashConsoleSecret('y'.repeat(43)) }).thenError({ kind: 'ConsoleLinkNotFound' }));
    it('opens nothing at its expiry', () =>
      spec.given(issued).when({ ...redeem, at: minutes(15) }).thenError({ kind: 'ConsoleLinkExpired', expiresAt: '2026-03-01T10:15:00.000Z' }));
    it('is not issued twice', () => spec.given(issued).when(issue).thenError({ kind: 'ConsoleLinkAlreadyIssued', linkId: 'l-1' }));
  });

  describe('given a used link', () => {
    it('opens nothing again, and says when it was used', () =>
      spec.given(issued, redeemed).when({ ...redeem, sessionId: 's-2' }).thenError({ kind: 'ConsoleLinkUsed', redeemedAt: '2026-03-01T10:01:00.000Z' }));
    it('says it was used even once expired', () =>
      spec.given(issued, redeemed).when({ ...redeem, at: minutes(60) }).thenError({ kind: 'ConsoleLinkUsed', redeemedAt: '2026-03-01T10:01:00.000Z' }));
  });
});
