import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { UsageCounters, UsageRow } from '../../src/application/ports/UsageCounters.js';

export interface UsageCountersUnderTest {
  readonly counters: UsageCounters;
  /** Counters on the same storage (another process, another instance); null for counters no other process can see. */
  readonly reopen: (() => Promise<UsageCounters>) | null;
  readonly dispose: () => Promise<void>;
}

const HOUR = 3_600_000;
const H0 = new Date('2026-03-01T10:00:00.000Z');
const hour = (n: number): Date => new Date(H0.getTime() + n * HOUR);

const row = (companyId: string, n: number, keyId: string | null, counts: Partial<UsageRow> = {}): UsageRow => ({
  companyId,
  hour: hour(n),
  keyId,
  requests: 0,
  limited: 0,
  deliveriesOk: 0,
  deliveriesFailed: 0,
  ...counts,
});

const byHourAndKey = (rows: readonly UsageRow[]): UsageRow[] =>
  [...rows].sort((a, b) => a.hour.getTime() - b.hour.getTime() || (a.keyId ?? '').localeCompare(b.keyId ?? ''));

/** The UsageCounters contract, run for every adapter. Companies are unique per test, so a shared server is fine. */
export const usageCountersContract = (
  name: string,
  make: () => Promise<UsageCountersUnderTest>,
  /** False for a store no other process can see (memory): the test across processes is left out. */
  { shared = true }: { readonly shared?: boolean } = {},
): void => {
  describe(`UsageCounters: ${name}`, () => {
    let made: UsageCountersUnderTest;
    let company: string;
    beforeEach(async () => {
      made = await make();
      company = randomUUID();
    });
    afterEach(() => made.dispose());

    it('adds batches to the stored counts, per hour and per key, deliveries without a key', async () => {
      await made.counters.add([
        row(company, 0, 'k1', { requests: 3, limited: 1 }),
        row(company, 0, null, { deliveriesOk: 2, deliveriesFailed: 1 }),
        row(company, 1, 'k1', { requests: 1 }),
      ]);
      await made.counters.add([row(company, 0, 'k1', { requests: 2 }), row(company, 0, 'k2', { requests: 5 }), row(company, 0, null, { deliveriesOk: 1 })]);
      expect(byHourAndKey(await made.counters.read(company, hour(0), hour(2)))).to.deep.equal([
        row(company, 0, null, { deliveriesOk: 3, deliveriesFailed: 1 }),
        row(company, 0, 'k1', { requests: 5, limited: 1 }),
        row(company, 0, 'k2', { requests: 5 }),
        row(company, 1, 'k1', { requests: 1 }),
      ]);
    });

    it('adds rows of one batch that share a company, hour and key', async () => {
      await made.counters.add([row(company, 0, 'k1', { requests: 1 }), row(company, 0, 'k1', { requests: 2, limited: 2 })]);
      expect(await made.counters.read(company, hour(0), hour(1))).to.deep.equal([row(company, 0, 'k1', { requests: 3, limited: 2 })]);
    });

    it("reads one company's hours in [from, to) only", async () => {
      const other = randomUUID();
      await made.counters.add([row(company, -1, 'k'), row(company, 0, 'k', { requests: 1 }), row(company, 2, 'k'), row(other, 0, 'k', { requests: 9 })]);
      expect(await made.counters.read(company, hour(0), hour(2))).to.deep.equal([row(company, 0, 'k', { requests: 1 })]);
    });

    it('prunes the hours before a time', async () => {
      await made.counters.add([row(company, -48, 'k', { requests: 1 }), row(company, 0, 'k', { requests: 2 })]);
      expect(await made.counters.prune(hour(-24))).to.be.at.least(1);
      expect(await made.counters.read(company, hour(-100), hour(1))).to.deep.equal([row(company, 0, 'k', { requests: 2 })]);
    });

    it('forgets every row of a company (its erasure), and none of another', async () => {
      const other = randomUUID();
      await made.counters.add([row(company, -48, 'k', { requests: 1 }), row(company, 0, null, { deliveriesOk: 2 }), row(other, 0, 'k', { requests: 3 })]);
      expect(await made.counters.forgetCompany(company)).to.equal(2);
      expect(await made.counters.read(company, hour(-100), hour(1))).to.deep.equal([]);
      expect(await made.counters.read(other, hour(0), hour(1))).to.deep.equal([row(other, 0, 'k', { requests: 3 })]);
      expect(await made.counters.forgetCompany(company)).to.equal(0);
    });

    // Counters that other processes see (every adapter but memory's).
    if (shared) it('adds up what several processes add at once', async () => {
      const others = await Promise.all([made.reopen!(), made.reopen!()]);
      const all = [made.counters, ...others];
      await Promise.all(
        all.flatMap((counters) => Array.from({ length: 10 }, () => counters.add([row(company, 0, 'k', { requests: 1 }), row(company, 0, null, { deliveriesOk: 1 })]))),
      );
      expect(byHourAndKey(await made.counters.read(company, hour(0), hour(1)))).to.deep.equal([
        row(company, 0, null, { deliveriesOk: 30 }),
        row(company, 0, 'k', { requests: 30 }),
      ]);
      await Promise.all(others.map((counters) => counters.close()));
    });
  });
};
