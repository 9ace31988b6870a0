import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { RateLimitCounters, RateLimits, ReleaseSlot } from '../../src/application/ports/RateLimitCounters.js';

export interface CountersUnderTest {
  readonly counters: RateLimitCounters;
  readonly dispose: () => Promise<void>;
}

export type MakeCounters = (limits: RateLimits, options?: { leaseSeconds?: number }) => Promise<CountersUnderTest>;

const at = (iso: string) => new Date(iso);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The RateLimitCounters contract, run for every adapter. Keys are unique per test,
 * so a shared store is fine. `leases`: slots outlive a dead process in a shared
 * store and must expire (a process-local counter dies with its process).
 * `take`: the adapter also counts and gives a slot in one step (`take`, or `admit`
 * when they are kept by another process).
 */
export const rateLimitCountersContract = (
  name: string,
  make: MakeCounters,
  features: { readonly leases: boolean; readonly take?: boolean },
): void => {
  describe(`RateLimitCounters: ${name}`, () => {
    const disposers: (() => Promise<void>)[] = [];
    const counters = async (limits: Partial<RateLimits> = {}, options: { leaseSeconds?: number } = {}) => {
      const made = await make({ hourly: 5, daily: 20, concurrent: 3, ...limits }, options);
      disposers.push(made.dispose);
      return made.counters;
    };
    const key = () => `key-${randomUUID()}`;
    afterEach(async () => {
      await Promise.all(disposers.splice(0).map((dispose) => dispose()));
    });

    describe('requests per window', () => {
      it('counts remaining requests down in both windows, with the windows’ ends as resets', async () => {
        const c = await counters({ hourly: 5, daily: 20 });
        const k = key();
        const now = at('2026-03-04T10:20:30.000Z');
        const remaining: [number, number][] = [];
        for (let i = 0; i < 3; i += 1) {
          const decision = await c.consume(k, now);
          expect(decision.allowed).to.equal(true);
          remaining.push([decision.hourly.remaining, decision.daily.remaining]);
        }
        expect(remaining).to.deep.equal([
          [4, 19],
          [3, 18],
          [2, 17],
        ]);
        const last = await c.consume(k, now);
        expect(last.hourly.resetAt.toISOString()).to.equal('2026-03-04T11:00:00.000Z');
        expect(last.daily.resetAt.toISOString()).to.equal('2026-03-05T00:00:00.000Z');
        expect(last.hourly.limit).to.equal(5);
        expect(last.daily.limit).to.equal(20);
      });

      it('refuses the request after the hourly limit until the top of the hour', async () => {
        const c = await counters({ hourly: 3, daily: 20 });
        const k = key();
        const now = at('2026-03-04T10:20:30.000Z');
        for (let i = 0; i < 3; i += 1) expect((await c.consume(k, now)).allowed).to.equal(true);
        const refused = await c.consume(k, now);
        expect(refused).to.include({ allowed: false, retryAfterSeconds: 39 * 60 + 30 });
        expect(refused.exceeded).to.deep.equal(['hourly']);
        expect(refused.hourly.remaining).to.equal(0);

        const nextHour = await c.consume(k, at('2026-03-04T11:00:00.000Z'));
        expect(nextHour.allowed).to.equal(true);
        expect(nextHour.hourly.remaining).to.equal(2);
      });

      it('counts refused requests too (they use up the day)', async () => {
        const c = await counters({ hourly: 2, daily: 3 });
        const k = key();
        const ten = at('2026-03-04T10:20:30.000Z');
        expect((await c.consume(k, ten)).allowed).to.equal(true);
        expect((await c.consume(k, ten)).allowed).to.equal(true);
        expect((await c.consume(k, ten)).exceeded).to.deep.equal(['hourly']);
        // A new hour, but the refused request was the day's third.
        const eleven = await c.consume(k, at('2026-03-04T11:05:00.000Z'));
        expect(eleven.allowed).to.equal(false);
        expect(eleven.exceeded).to.deep.equal(['daily']);
        expect(eleven.hourly.remaining).to.equal(1);
        expect(eleven.retryAfterSeconds).to.equal(12 * 3600 + 55 * 60);
      });

      it('at 23:59:30 over the daily limit: retry after 30 s; at midnight UTC the day starts again', async () => {
        const c = await counters({ hourly: 100, daily: 2 });
        const k = key();
        const late = at('2026-03-04T23:59:30.000Z');
        await c.consume(k, late);
        await c.consume(k, late);
        const refused = await c.consume(k, late);
        expect(refused).to.include({ allowed: false, retryAfterSeconds: 30 });
        expect(refused.daily.resetAt.toISOString()).to.equal('2026-03-05T00:00:00.000Z');
        const midnight = await c.consume(k, at('2026-03-05T00:00:00.000Z'));
        expect(midnight.allowed).to.equal(true);
        expect(midnight.daily.remaining).to.equal(1);
      });

      it('counts keys apart', async () => {
        const c = await counters({ hourly: 1, daily: 10 });
        const a = key();
        const b = key();
        const now = at('2026-03-04T10:00:00.000Z');
        expect((await c.consume(a, now)).allowed).to.equal(true);
        expect((await c.consume(a, now)).allowed).to.equal(false);
        const other = await c.consume(b, now);
        expect(other.allowed).to.equal(true);
        expect(other.hourly.remaining).to.equal(0);
      });

      it('counts simultaneous requests exactly (atomic increments)', async () => {
        const c = await counters({ hourly: 10, daily: 100 });
        const k = key();
        const now = at('2026-03-04T10:00:00.000Z');
        const decisions = await Promise.all(Array.from({ length: 25 }, () => c.consume(k, now)));
        expect(decisions.filter((d) => d.allowed)).to.have.length(10);
        expect(Math.min(...decisions.map((d) => d.daily.remaining))).to.equal(75);
      });
    });

    describe('concurrency slots', () => {
      it('hands out `concurrent` slots per key, then none until one is released', async () => {
        const c = await counters({ concurrent: 3 });
        const k = key();
        const slots: ReleaseSlot[] = [];
        for (let i = 0; i < 3; i += 1) {
          const slot = await c.acquire(k);
          expect(slot, `slot ${i + 1}`).to.be.a('function');
          slots.push(slot!);
        }
        expect(await c.acquire(k)).to.equal(null);
        expect(await c.acquire(key()), 'another key').to.be.a('function');
        await slots[0]!();
        const again = await c.acquire(k);
        expect(again).to.be.a('function');
        expect(await c.acquire(k)).to.equal(null);
      });

      it('a second release of the same slot frees nothing more', async () => {
        const c = await counters({ concurrent: 2 });
        const k = key();
        const first = (await c.acquire(k))!;
        await c.acquire(k);
        await first();
        await first();
        expect(await c.acquire(k)).to.be.a('function');
        expect(await c.acquire(k)).to.equal(null);
      });

      it('hands out no more slots than there are to simultaneous callers', async () => {
        const c = await counters({ concurrent: 3 });
        const k = key();
        const slots = await Promise.all(Array.from({ length: 8 }, () => c.acquire(k)));
        expect(slots.filter((s) => s !== null)).to.have.length(3);
      });

      if (features.leases) {
        it('a slot never released (its process died) is free again when its lease ends', async function () {
          this.timeout(5000);
          const c = await counters({ concurrent: 1 }, { leaseSeconds: 1 });
          const k = key();
          expect(await c.acquire(k)).to.be.a('function');
          expect(await c.acquire(k)).to.equal(null);
          await sleep(1100);
          expect(await c.acquire(k)).to.be.a('function');
        });
      }
    });

    describe('other limits on the same counters (withLimits)', () => {
      it('counts a key once whichever limits judge it, and each judges windows and slots with its own', async () => {
        const c = await counters({ hourly: 5, daily: 20, concurrent: 3 });
        const other = c.withLimits({ hourly: 2, daily: 4, concurrent: 1 });
        expect(other.limits).to.deep.equal({ hourly: 2, daily: 4, concurrent: 1 });
        const k = key();
        const now = at('2026-03-04T10:20:30.000Z');
        const first = await other.consume(k, now);
        expect([first.allowed, first.hourly.limit, first.hourly.remaining, first.daily.limit]).to.deep.equal([true, 2, 1, 4]);
        expect((await c.consume(k, now)).hourly.remaining, 'the same count, judged with 5').to.equal(3);
        const third = await other.consume(k, now);
        expect(third.allowed).to.equal(false);
        expect(third.exceeded).to.deep.equal(['hourly']);

        const s = key();
        const slot = await other.acquire(s);
        expect(slot, 'one slot with the other limits').to.be.a('function');
        expect(await other.acquire(s), 'and no second').to.equal(null);
        const own = await c.acquire(s);
        expect(own, 'three with the first').to.be.a('function');
        await own!();
        await slot!();
        expect(await eventuallyAcquired(other, s)).to.be.a('function');
        if (features.take) {
          const t = key();
          const take = (other.take ?? other.admit)!.bind(other);
          expect((await take(t, now)).decision.hourly.limit).to.equal(2);
          await take(t, now);
          const refused = await take(t, now);
          expect([refused.decision.allowed, refused.release]).to.deep.equal([false, null]);
        }
      });
    });

    if (features.take) describe('take (counters that count and give a slot in one step)', () => {
      it('counts as consume does, gives a slot only while the windows allow, and the slot is the one acquire counts', async () => {
        const c = await counters({ hourly: 3, daily: 20, concurrent: 2 });
        // In this process (`take`), or one question to the process that keeps them (`admit`).
        const oneStep = c.take ?? c.admit;
        expect(oneStep, 'this adapter counts in one step').to.be.a('function');
        const take = oneStep!.bind(c);
        const k = key();
        const now = at('2026-03-04T10:20:30.000Z');
        const first = await take(k, now);
        expect(first.decision.allowed).to.equal(true);
        expect(first.decision.hourly.remaining).to.equal(2);
        expect(first.release).to.be.a('function');
        // Shared with consume's count and acquire's slots.
        expect((await c.consume(k, now)).hourly.remaining).to.equal(1);
        const second = await take(k, now);
        expect(second.decision.hourly.remaining).to.equal(0);
        expect(second.release).to.be.a('function');
        expect(await c.acquire(k), 'both slots are taken').to.equal(null);
        first.release!();
        first.release!();
        const again = await eventuallyAcquired(c, k);
        expect(again, 'given back once').to.be.a('function');
        expect(await c.acquire(k), 'and only once').to.equal(null);
        // Every slot free again, but over the hourly limit: refused, and no slot taken.
        await again!();
        second.release!();
        const refused = await take(k, now);
        expect(refused.decision.allowed).to.equal(false);
        expect(refused.decision.exceeded).to.deep.equal(['hourly']);
        expect(refused.release).to.equal(null);
        expect(await eventuallyAcquired(c, k)).to.be.a('function');
        expect(await eventuallyAcquired(c, k), 'the refused take held none').to.be.a('function');
      });
    });
  });
};

/** A slot given back over a channel arrives a moment later: acquire until it does (bounded). */
const eventuallyAcquired = async (c: RateLimitCounters, k: string): Promise<ReleaseSlot | null> => {
  for (let i = 0; i < 50; i += 1) {
    const slot = await c.acquire(k);
    if (slot) return slot;
    await sleep(10);
  }
  return null;
};
