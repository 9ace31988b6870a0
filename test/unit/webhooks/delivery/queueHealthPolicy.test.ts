import { expect } from 'chai';
import { HEALTHY, type QueueHealth } from '../../../../src/application/ports/WebhookOutbox.js';
import { DEFAULT_PAUSE_POLICY, nextHealth } from '../../../../src/webhooks/queueHealthPolicy.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const iso = (ms: number) => at(ms).toISOString();
const policy = { pauseDelaysMs: [60_000, 300_000], disableAfterMs: 3_600_000 };
const { version: _version, ...HEALTHY_CHANGE } = HEALTHY;
const health = (change: Partial<QueueHealth>): QueueHealth => ({ ...HEALTHY, version: 4, ...change });

describe('queue health: when a failing receiver is paused, then disabled', () => {
  it('changes nothing for a delivery to a healthy receiver', () => {
    expect(nextHealth(health({}), 'delivered', at(0), at(1), policy)).to.equal(null);
  });

  it('notes the first failure, and nothing more while the row has retries left', () => {
    expect(nextHealth(health({}), 'retry', at(0), at(30), policy)).to.deep.equal({ ...HEALTHY_CHANGE, failingSince: iso(0) });
    expect(nextHealth(health({ failingSince: iso(0) }), 'retry', at(5000), at(5030), policy)).to.equal(null);
  });

  it('pauses when a row used up its retries: held for the first delay, since the first failure', () => {
    expect(nextHealth(health({ failingSince: iso(0) }), 'exhausted', at(155_000), at(155_010), policy)).to.deep.equal({
      status: 'paused',
      loggedStatus: 'active',
      failingSince: iso(0),
      pauses: 1,
      holdUntil: iso(215_010),
    });
  });

  it('holds a paused queue longer after each failed attempt (the last delay repeating)', () => {
    const paused = health({ status: 'paused', loggedStatus: 'paused', failingSince: iso(0), pauses: 1, holdUntil: iso(200_000) });
    expect(nextHealth(paused, 'retry', at(200_000), at(200_000), policy)).to.deep.include({ status: 'paused', pauses: 2, holdUntil: iso(500_000) });
    const third = { ...paused, pauses: 2 };
    expect(nextHealth(third, 'exhausted', at(500_000), at(500_000), policy)).to.deep.include({ pauses: 3, holdUntil: iso(800_000) });
  });

  it('ends the last hold when the receiver has failed for `disableAfterMs`, and disables it if that attempt fails', () => {
    const paused = health({ status: 'paused', loggedStatus: 'paused', failingSince: iso(0), pauses: 5, holdUntil: null });
    expect(nextHealth(paused, 'retry', at(3_500_000), at(3_500_000), policy)).to.deep.include({ status: 'paused', holdUntil: iso(3_600_000) });
    expect(nextHealth(paused, 'retry', at(3_600_000), at(3_600_000), policy)).to.deep.equal({
      status: 'disabled',
      loggedStatus: 'paused',
      failingSince: iso(0),
      pauses: 5,
      holdUntil: null,
    });
  });

  it('a delivery after failures makes it healthy again, keeping what the log says until the event is appended', () => {
    const paused = health({ status: 'paused', loggedStatus: 'paused', failingSince: iso(0), pauses: 2, holdUntil: iso(10) });
    expect(nextHealth(paused, 'delivered', at(20), at(25), policy)).to.deep.equal({ ...HEALTHY_CHANGE, loggedStatus: 'paused' });
    expect(nextHealth(health({ failingSince: iso(0) }), 'delivered', at(20), at(25), policy)).to.deep.equal(HEALTHY_CHANGE);
  });

  it('by default pauses for 1 min, 5 min, 30 min, 1 h, 2 h, 4 h, then every 6 h, and disables after 5 days', () => {
    expect(DEFAULT_PAUSE_POLICY).to.deep.equal({
      pauseDelaysMs: [60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 21_600_000],
      disableAfterMs: 432_000_000,
    });
  });
});
