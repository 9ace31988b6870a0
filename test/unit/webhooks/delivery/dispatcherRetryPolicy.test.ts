import { expect } from 'chai';
import { nextRetryDelayMs, parseRetryAfter } from '../../../../src/webhooks/dispatcherRetryPolicy.js';

describe('Webhook retry policy', () => {
  const now = new Date('2026-03-04T10:00:00.000Z');
  const base = { retryDelaysMs: [5000, 30000, 120000], statusCode: 500, retryAfter: null, now, random: () => 0.5 };

  describe('given failed attempts', () => {
    it('waits the configured delay of each retry, then gives up after the last', () => {
      expect([1, 2, 3, 4].map((attempt) => nextRetryDelayMs({ ...base, attempt }))).to.deep.equal([5000, 30000, 120000, null]);
    });

    it('spreads each delay by ±20% jitter', () => {
      expect(nextRetryDelayMs({ ...base, attempt: 1, random: () => 0 })).to.equal(4000);
      expect(nextRetryDelayMs({ ...base, attempt: 1, random: () => 0.999999 })).to.be.within(5999, 6000);
    });
  });

  describe('given a Retry-After on 429 or 503', () => {
    it('waits as long as asked, in seconds or as an HTTP date', () => {
      expect(nextRetryDelayMs({ ...base, attempt: 1, statusCode: 429, retryAfter: '90' })).to.equal(90_000);
      const date = new Date(now.getTime() + 200_000).toUTCString();
      expect(nextRetryDelayMs({ ...base, attempt: 1, statusCode: 503, retryAfter: date })).to.equal(200_000);
    });

    it('never waits less than the configured delay, nor more than 10 minutes (or the bound given)', () => {
      expect(nextRetryDelayMs({ ...base, attempt: 2, statusCode: 429, retryAfter: '1' })).to.equal(30_000);
      expect(nextRetryDelayMs({ ...base, attempt: 1, statusCode: 429, retryAfter: '86400' })).to.equal(600_000);
      expect(nextRetryDelayMs({ ...base, attempt: 1, statusCode: 429, retryAfter: '86400', maxRetryAfterMs: 60_000 })).to.equal(60_000);
    });

    it('still gives up after the last retry', () => {
      expect(nextRetryDelayMs({ ...base, attempt: 4, statusCode: 429, retryAfter: '10' })).to.equal(null);
    });

    it('ignores it on other statuses, and when it cannot be read', () => {
      expect(nextRetryDelayMs({ ...base, attempt: 1, statusCode: 500, retryAfter: '90' })).to.equal(5000);
      expect(nextRetryDelayMs({ ...base, attempt: 1, statusCode: 429, retryAfter: 'soon' })).to.equal(5000);
    });
  });

  describe('parseRetryAfter', () => {
    it('reads seconds and HTTP dates; a past date is 0; anything else is null', () => {
      expect(parseRetryAfter(' 12 ', now)).to.equal(12_000);
      expect(parseRetryAfter('Wed, 04 Mar 2026 09:00:00 GMT', now)).to.equal(0);
      expect(parseRetryAfter('-5', now)).to.equal(null);
      expect(parseRetryAfter('1.5', now)).to.equal(null);
      expect(parseRetryAfter(null, now)).to.equal(null);
    });
  });
});
