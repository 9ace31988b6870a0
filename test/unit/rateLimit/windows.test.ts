import { expect } from 'chai';
import {
  rateLimitDecision,
  secondsUntil,
  utcDayWindow,
  utcHourWindow,
} from '../../../src/application/ports/RateLimitCounters.js';

const at = (iso: string) => new Date(iso);

describe('rate-limit windows (fixed, aligned to UTC)', () => {
  it('the hourly window runs from the top of the UTC hour to the next', () => {
    const window = utcHourWindow(at('2026-03-04T10:20:30.123Z'));
    expect(window.start.toISOString()).to.equal('2026-03-04T10:00:00.000Z');
    expect(window.end.toISOString()).to.equal('2026-03-04T11:00:00.000Z');
  });

  it('the daily window runs from midnight UTC to the next midnight UTC', () => {
    const window = utcDayWindow(at('2026-03-04T23:59:30.000Z'));
    expect(window.start.toISOString()).to.equal('2026-03-04T00:00:00.000Z');
    expect(window.end.toISOString()).to.equal('2026-03-05T00:00:00.000Z');
  });

  it('a window boundary belongs to the new window', () => {
    expect(utcHourWindow(at('2026-03-04T10:59:59.999Z')).end.toISOString()).to.equal('2026-03-04T11:00:00.000Z');
    expect(utcHourWindow(at('2026-03-04T11:00:00.000Z')).start.toISOString()).to.equal('2026-03-04T11:00:00.000Z');
    expect(utcDayWindow(at('2026-03-05T00:00:00.000Z')).start.toISOString()).to.equal('2026-03-05T00:00:00.000Z');
  });

  it('days are UTC days whatever the local zone (no DST), and leap days count', () => {
    expect(utcDayWindow(at('2028-02-29T12:00:00+05:00')).start.toISOString()).to.equal('2028-02-29T00:00:00.000Z');
    expect(utcDayWindow(at('2028-02-29T02:00:00+05:00')).start.toISOString()).to.equal('2028-02-28T00:00:00.000Z');
  });

  it('rounds seconds until a reset up', () => {
    expect(secondsUntil(at('2026-03-05T00:00:00.000Z'), at('2026-03-04T23:59:30.000Z'))).to.equal(30);
    expect(secondsUntil(at('2026-03-05T00:00:00.000Z'), at('2026-03-04T23:59:30.001Z'))).to.equal(30);
    expect(secondsUntil(at('2026-03-05T00:00:00.000Z'), at('2026-03-04T23:59:59.999Z'))).to.equal(1);
  });

  describe('the decision', () => {
    const limits = { hourly: 10, daily: 20 };

    it('at 23:59:30 over the daily limit: retry after 30 s, both windows reset at midnight', () => {
      const decision = rateLimitDecision(limits, at('2026-03-04T23:59:30.000Z'), 5, 21);
      expect(decision.allowed).to.equal(false);
      expect(decision.exceeded).to.deep.equal(['daily']);
      expect(decision.retryAfterSeconds).to.equal(30);
      expect(decision.daily).to.deep.equal({ limit: 20, remaining: 0, resetAt: at('2026-03-05T00:00:00.000Z') });
      expect(decision.hourly).to.deep.equal({ limit: 10, remaining: 5, resetAt: at('2026-03-05T00:00:00.000Z') });
    });

    it('over the hourly limit only: retry at the top of the hour', () => {
      const decision = rateLimitDecision(limits, at('2026-03-04T10:20:30.000Z'), 11, 11);
      expect(decision.exceeded).to.deep.equal(['hourly']);
      expect(decision.retryAfterSeconds).to.equal(39 * 60 + 30);
    });

    it('over both: retry once both have reset (the day)', () => {
      const decision = rateLimitDecision(limits, at('2026-03-04T10:20:30.000Z'), 11, 21);
      expect(decision.exceeded).to.deep.equal(['hourly', 'daily']);
      expect(decision.retryAfterSeconds).to.equal(13 * 3600 + 39 * 60 + 30);
    });

    it('at the limit exactly: allowed, nothing remaining, no retry', () => {
      const decision = rateLimitDecision(limits, at('2026-03-04T10:20:30.000Z'), 10, 10);
      expect(decision).to.include({ allowed: true, retryAfterSeconds: 0 });
      expect(decision.hourly.remaining).to.equal(0);
      expect(decision.daily.remaining).to.equal(10);
    });

    it('refused at the very end of a window: retry after at least 1 s', () => {
      expect(rateLimitDecision(limits, at('2026-03-04T10:59:59.999Z'), 11, 1).retryAfterSeconds).to.equal(1);
    });
  });
});
