import { expect } from 'chai';
import { decideAttempt, type RetryInput } from '../../../../src/webhooks/dispatcherRetryPolicy.js';

const now = new Date('2026-01-01T00:00:00.000Z');
const answer = (statusCode: number | null, attempt: number, retryAfter: string | null = null): RetryInput => ({
  attempt,
  retryDelaysMs: [5000, 30000],
  statusCode,
  retryAfter,
  now,
  random: () => 0.5,
});

describe('decideAttempt (what an answer means for the row)', () => {
  it('delivers on 200, and only on 200', () => {
    expect(decideAttempt(answer(200, 1))).to.deep.equal({ kind: 'delivered' });
    expect(decideAttempt(answer(201, 1)).kind).to.equal('retry');
    expect(decideAttempt(answer(204, 3)).kind).to.equal('failed');
  });

  it('ends the subscription on 410, with the retry to fall back on while it cannot be ended', () => {
    expect(decideAttempt(answer(410, 1))).to.deep.equal({ kind: 'gone', retryInMs: 5000 });
    expect(decideAttempt(answer(410, 3))).to.deep.equal({ kind: 'gone', retryInMs: null });
  });

  it('retries other answers and no answer per the delays, then fails', () => {
    expect(decideAttempt(answer(500, 1))).to.deep.equal({ kind: 'retry', retryInMs: 5000 });
    expect(decideAttempt(answer(null, 2))).to.deep.equal({ kind: 'retry', retryInMs: 30000 });
    expect(decideAttempt(answer(500, 3))).to.deep.equal({ kind: 'failed' });
  });

  it('waits as long as a 429 or 503 asks when that is longer', () => {
    expect(decideAttempt(answer(429, 1, '120'))).to.deep.equal({ kind: 'retry', retryInMs: 120_000 });
    expect(decideAttempt(answer(503, 1, '1'))).to.deep.equal({ kind: 'retry', retryInMs: 5000 });
  });
});
