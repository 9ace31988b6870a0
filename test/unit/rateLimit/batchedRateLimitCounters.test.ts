import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { MemoryRateLimitCounters } from '../../../src/adapters/memory/MemoryRateLimitCounters.js';
import { PostgresRateLimitCounters } from '../../../src/adapters/postgres/PostgresRateLimitCounters.js';
import { BatchedRateLimitCounters } from '../../../src/application/rateLimits/BatchedRateLimitCounters.js';
import type { RateLimitCounters, RateLimits, WindowCounts } from '../../../src/application/ports/RateLimitCounters.js';
import { StoreUnavailableError } from '../../../src/application/ports/StoreUnavailableError.js';
import { countStatements, postgresTestUrl } from '../../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../../support/postgresLog.js';
import { skipLine } from '../../support/integration.js';

const now = new Date('2026-03-04T10:20:30.000Z');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A store (the memory counters, shared as one database would be) that counts the adds and slot takes it is asked for. */
const countingStore = (limits: RateLimits) => {
  const store = new MemoryRateLimitCounters(limits);
  const asked = { adds: 0, acquires: 0, inFlight: 0, mostInFlight: 0 };
  const counting: RateLimitCounters = {
    limits,
    consume: (keyId, at) => store.consume(keyId, at),
    add: (keyId, at, n) => {
      asked.adds += 1;
      return store.add(keyId, at, n);
    },
    acquire: async (keyId) => {
      asked.acquires += 1;
      const release = await store.acquire(keyId);
      if (!release) return null;
      asked.inFlight += 1;
      asked.mostInFlight = Math.max(asked.mostInFlight, asked.inFlight);
      let given = false;
      return async () => {
        if (!given) asked.inFlight -= 1;
        given = true;
        await release();
      };
    },
    withLimits: () => counting,
  };
  return { store, counting, asked };
};

describe('BatchedRateLimitCounters: counts added to the shared store in batches, slots held exactly', () => {
  it('given two processes on one store with a batch of 5, when 200 requests alternate, then at most 2 × 5 get past the hourly limit of 50, and none is lost', async () => {
    const limits = { hourly: 50, daily: 1000, concurrent: 10 };
    const { store, counting } = countingStore(limits);
    const [a, b] = [new BatchedRateLimitCounters(counting, { batch: 5, leaseSeconds: 120 }), new BatchedRateLimitCounters(counting, { batch: 5, leaseSeconds: 120 })];
    let allowed = 0;
    for (let i = 0; i < 100; i++) {
      const decisions = await Promise.all([a.consume('k', now), b.consume('k', now)]);
      allowed += decisions.filter((decision) => decision.allowed).length;
    }
    expect(allowed).to.be.within(50, 50 + 2 * 5);
    await Promise.all([a.close(), b.close()]);
    expect(store.count('k', now, 0).hourly, 'every request, refused ones too, is in the store once closed').to.equal(200);
  });

  it('given one process, when requests come one after another, then its counts are exact and it asks the store about once a batch', async () => {
    const limits = { hourly: 1000, daily: 1000, concurrent: 10 };
    const { counting, asked } = countingStore(limits);
    const counters = new BatchedRateLimitCounters(counting, { batch: 10, leaseSeconds: 120 });
    const remaining: number[] = [];
    for (let i = 0; i < 100; i++) remaining.push((await counters.consume('k', now)).hourly.remaining);
    expect(remaining).to.deep.equal(Array.from({ length: 100 }, (_, i) => 999 - i));
    expect(asked.adds).to.be.within(10, 12);
    await counters.close();
  });

  it('given a limit nearer than a batch, when requests come, then each waits for the store and the limit holds exactly', async () => {
    const limits = { hourly: 12, daily: 1000, concurrent: 10 };
    const { counting } = countingStore(limits);
    const counters = new BatchedRateLimitCounters(counting, { batch: 5, leaseSeconds: 120 });
    const decisions = await Promise.all(Array.from({ length: 20 }, () => counters.consume('k', now)));
    expect(decisions.filter((decision) => decision.allowed)).to.have.length(12);
    expect(decisions.map((decision) => decision.hourly.remaining).slice(0, 12)).to.deep.equal([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    await counters.close();
  });

  it('given a window over its limit, when a client keeps asking, then it is refused from memory and its refusals are counted in batches', async () => {
    const limits = { hourly: 3, daily: 1000, concurrent: 10 };
    const { store, counting, asked } = countingStore(limits);
    const counters = new BatchedRateLimitCounters(counting, { batch: 10, leaseSeconds: 120 });
    for (let i = 0; i < 4; i++) await counters.consume('k', now);
    const addsBefore = asked.adds;
    for (let i = 0; i < 30; i++) expect((await counters.consume('k', now)).allowed).to.equal(false);
    expect(asked.adds - addsBefore, 'about one add per batch of refusals').to.be.within(3, 4);
    await counters.close();
    expect(store.count('k', now, 0).hourly).to.equal(34);
  });

  it('given the concurrency limit of 3, when two processes admit requests that stay open, then never more than 3 run, and a slot given back serves its process first', async () => {
    const limits = { hourly: 1000, daily: 1000, concurrent: 3 };
    const { counting, asked } = countingStore(limits);
    const [a, b] = [new BatchedRateLimitCounters(counting, { batch: 5, leaseSeconds: 120, idleSlotMs: 300 }), new BatchedRateLimitCounters(counting, { batch: 5, leaseSeconds: 120, idleSlotMs: 300 })];
    const held = await Promise.all([a.admit('k', now), a.admit('k', now), b.admit('k', now), b.admit('k', now)]);
    expect(held.filter((admission) => admission.release !== null)).to.have.length(3);
    expect(asked.mostInFlight).to.equal(3);
    const aHeld = held.slice(0, 2).find((admission) => admission.release !== null)!;
    await aHeld.release!();
    const acquiresBefore = asked.acquires;
    // The slot stays with a for its next request: b finds none; a takes it back without asking the store.
    expect((await b.admit('k', now)).release).to.equal(null);
    const again = await a.admit('k', now);
    expect(again.release).to.be.a('function');
    expect(asked.acquires - acquiresBefore, 'b asked the store once; a none').to.equal(1);
    await again.release!();
    // Given back by a's sweep once idle for 300 ms (asked again until then, within a bound: timers may run late).
    let free = await b.admit('k', now);
    for (const until = Date.now() + 5_000; free.release === null && Date.now() < until; free = await b.admit('k', now)) await sleep(20);
    expect(free.release, 'given back to the store after 300 ms idle').to.be.a('function');
    expect(asked.mostInFlight).to.equal(3);
    await Promise.all([...held, free].map((admission) => admission.release?.()));
    await Promise.all([a.close(), b.close()]);
    expect(asked.inFlight, 'every slot given back at close').to.equal(0);
  });

  it('given a store that fails, when a request waits for its count, then it fails as the store did, and the counts answered from memory are added later', async () => {
    const limits = { hourly: 1000, daily: 1000, concurrent: 3 };
    const { store, counting } = countingStore(limits);
    let failing = false;
    const flaky: RateLimitCounters = {
      ...counting,
      add: (keyId: string, at: Date, n: number): Promise<WindowCounts> => (failing ? Promise.reject(new StoreUnavailableError('busy', 1)) : counting.add!(keyId, at, n)),
    };
    const counters = new BatchedRateLimitCounters(flaky, { batch: 5, leaseSeconds: 120, flushMs: 10 });
    await counters.consume('k', now);
    failing = true;
    for (let i = 0; i < 3; i++) await counters.consume('k', now);
    await sleep(30);
    const next = new BatchedRateLimitCounters(flaky, { batch: 5, leaseSeconds: 120 });
    let failed: unknown = null;
    await next.consume('k', now).catch((error: unknown) => (failed = error));
    expect(failed).to.be.instanceOf(StoreUnavailableError);
    failing = false;
    await counters.close();
    expect(store.count('k', now, 0).hourly, 'the first, and the three counted in memory').to.equal(4);
  });
});

describe('BatchedRateLimitCounters: a store failing in a way it does not say passes (a connection lost in a failover)', () => {
  it('given a store whose add and whose slots fail with a plain error, when requests wait for them, then they fail as the store being busy (503), never as an error the API does not know', async () => {
    const limits = { hourly: 1000, daily: 1000, concurrent: 3 };
    const { counting } = countingStore(limits);
    const lost = new Error('Connection terminated unexpectedly');
    const broken: RateLimitCounters = { ...counting, add: () => Promise.reject(lost), acquire: () => Promise.reject(lost) };
    const counters = new BatchedRateLimitCounters(broken, { batch: 5, leaseSeconds: 120 });
    const counted = await counters.consume('k', now).catch((error: unknown) => error);
    expect(counted).to.be.instanceOf(StoreUnavailableError);
    expect((counted as StoreUnavailableError).cause).to.equal(lost);
    const slot = await counters.acquire('k').catch((error: unknown) => error);
    expect(slot).to.be.instanceOf(StoreUnavailableError);
  });
});

if (postgresTestUrl()) {
  describe('BatchedRateLimitCounters on PostgreSQL: two processes on one database', () => {
    const database = databaseForThisFile();

    it('count 300 requests of one key with a few statements, within (processes × batch) of the limit, every request in the table at the end', async () => {
      const url = (await database()).url;
      const limits = { hourly: 200, daily: 100_000, concurrent: 5 };
      const [poolA, poolB] = [await migratedLogPool(url), await migratedLogPool(url)];
      const adds = [countStatements(poolA, 'WITH hourly AS'), countStatements(poolB, 'WITH hourly AS')];
      const [a, b] = [
        new BatchedRateLimitCounters(new PostgresRateLimitCounters(poolA, limits), { batch: 20, leaseSeconds: 120 }),
        new BatchedRateLimitCounters(new PostgresRateLimitCounters(poolB, limits), { batch: 20, leaseSeconds: 120 }),
      ];
      const k = `key-${randomUUID()}`;
      let allowed = 0;
      let mostRunning = 0;
      try {
        for (let round = 0; round < 30; round++) {
          const admissions = await Promise.all([a, b, a, b, a, b, a, b, a, b].map((counters) => counters.admit(k, now)));
          allowed += admissions.filter((admission) => admission.decision.allowed).length;
          mostRunning = Math.max(mostRunning, admissions.filter((admission) => admission.release !== null).length);
          await Promise.all(admissions.map((admission) => admission.release?.()));
        }
        expect(allowed).to.be.within(200, 200 + 2 * 20);
        expect(mostRunning, 'never more slots than the limit').to.equal(5);
        expect(adds[0]!.count + adds[1]!.count, 'statements that count, for 300 requests').to.be.below(60);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
      const check = new PostgresRateLimitCounters(poolA, limits);
      expect((await check.add(k, now, 0)).hourly).to.equal(300);
      await check.close();
      await Promise.all([poolA.end(), poolB.end()]);
    });
  });
} else {
  skipLine('BatchedRateLimitCounters on PostgreSQL', 'POSTGRES_TEST_URL');
}
