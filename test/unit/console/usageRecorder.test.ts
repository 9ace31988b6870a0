import { expect } from 'chai';
import { MemoryUsageCounters } from '../../../src/adapters/memory/MemoryUsageCounters.js';
import { silentLogger } from '../../../src/application/ports/Logger.js';
import type { UsageCounters, UsageRow } from '../../../src/application/ports/UsageCounters.js';
import { companyUsage } from '../../../src/application/usage/companyUsage.js';
import { USAGE_RETENTION_MS, UsageRecorder } from '../../../src/application/usage/UsageRecorder.js';

const HOUR = 3_600_000;
/** 10:30 UTC: today began 10.5 hours ago, so the last 24 hours reach into yesterday. */
const NOW = new Date('2026-03-01T10:30:00.000Z');

const row = (hour: Date, keyId: string | null, counts: Partial<UsageRow>): UsageRow => ({
  companyId: 'co',
  hour,
  keyId,
  requests: 0,
  limited: 0,
  deliveriesOk: 0,
  deliveriesFailed: 0,
  ...counts,
});

const clockAt = (start: Date) => {
  let now = start.getTime();
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
};

describe('UsageRecorder', () => {
  it('adds up in memory and writes one row per company, hour and key at each flush', async () => {
    const counters = new MemoryUsageCounters();
    const clock = clockAt(NOW);
    const recorder = new UsageRecorder({ counters, clock, logger: silentLogger });
    recorder.request('co', 'k1', false);
    recorder.request('co', 'k1', true);
    recorder.request('co', 'k2', false);
    recorder.delivery('co', true);
    recorder.delivery('co', false);
    expect(await counters.read('co', new Date(0), new Date(NOW.getTime() + HOUR))).to.deep.equal([]);
    await recorder.flush();
    clock.advance(HOUR);
    recorder.request('co', 'k1', false);
    await recorder.stop();
    const rows = await counters.read('co', new Date(0), new Date(NOW.getTime() + 2 * HOUR));
    const hour = (ms: number) => new Date(Math.floor(ms / HOUR) * HOUR);
    expect(rows).to.have.deep.members([
      row(hour(NOW.getTime()), 'k1', { requests: 2, limited: 1 }),
      row(hour(NOW.getTime()), 'k2', { requests: 1 }),
      row(hour(NOW.getTime()), null, { deliveriesOk: 1, deliveriesFailed: 1 }),
      row(hour(NOW.getTime() + HOUR), 'k1', { requests: 1 }),
    ]);
  });

  it('keeps the counts of a failed write for the next one, added to what came meanwhile', async () => {
    const counters = new MemoryUsageCounters();
    let refuse = true;
    // The memory counters, refusing writes until told otherwise (a store that is down for a while).
    const flaky: UsageCounters = {
      read: (companyId, from, to) => counters.read(companyId, from, to),
      prune: (before) => counters.prune(before),
      forgetCompany: (companyId) => counters.forgetCompany(companyId),
      close: () => counters.close(),
      add: async (rows) => {
        if (refuse) throw new Error('store down');
        await counters.add(rows);
      },
    };
    const recorder = new UsageRecorder({ counters: flaky, clock: clockAt(NOW), logger: silentLogger });
    recorder.request('co', 'k', false);
    await recorder.flush();
    recorder.request('co', 'k', true);
    refuse = false;
    await recorder.flush();
    const [stored] = await counters.read('co', new Date(0), new Date(NOW.getTime() + HOUR));
    expect([stored?.requests, stored?.limited]).to.deep.equal([2, 1]);
  });

  it('prunes hours older than the retention', async () => {
    const counters = new MemoryUsageCounters();
    const old = new Date(NOW.getTime() - USAGE_RETENTION_MS - 2 * HOUR);
    await counters.add([{ companyId: 'co', hour: old, keyId: 'k', requests: 1, limited: 0, deliveriesOk: 0, deliveriesFailed: 0 }]);
    await new UsageRecorder({ counters, clock: clockAt(NOW), logger: silentLogger }).flush();
    expect(await counters.read('co', new Date(0), NOW)).to.deep.equal([]);
  });
});

describe('companyUsage', () => {
  it('answers the last 24 hours oldest first, this hour, today since midnight UTC, and each key', async () => {
    const counters = new MemoryUsageCounters();
    const thisHour = new Date('2026-03-01T10:00:00.000Z');
    const at = (hoursBack: number) => new Date(thisHour.getTime() - hoursBack * HOUR);
    await counters.add([
      row(at(0), 'k1', { requests: 4, limited: 1 }),
      row(at(0), null, { deliveriesOk: 2 }),
      row(at(3), 'k1', { requests: 10 }),
      row(at(12), 'k2', { requests: 7, limited: 7 }),
      row(at(30), 'k2', { requests: 100 }),
      row(thisHour, 'k1', { requests: 1 }),
    ]);
    await counters.add([{ ...row(thisHour, 'k3', { requests: 1 }), companyId: 'other' }]);
    const usage = await companyUsage(counters, 'co', NOW);
    expect(usage.hours).to.have.length(24);
    expect(usage.hours[23]).to.deep.equal({ hour: thisHour, requests: 5, limited: 1, deliveriesOk: 2, deliveriesFailed: 0 });
    expect(usage.hours[20]?.requests).to.equal(10);
    // Twelve hours back is yesterday: in the chart, not in today.
    expect(usage.hours[11]).to.deep.include({ requests: 7, limited: 7 });
    expect(usage.thisHour).to.deep.equal({ requests: 5, limited: 1, deliveriesOk: 2, deliveriesFailed: 0 });
    expect(usage.today).to.deep.equal({ requests: 15, limited: 1, deliveriesOk: 2, deliveriesFailed: 0 });
    expect(Object.fromEntries(usage.keys)).to.deep.equal({ k1: { thisHour: 5, today: 15 } });
  });
});
