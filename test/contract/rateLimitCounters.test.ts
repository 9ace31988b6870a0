import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { expect } from 'chai';
import { MemoryRateLimitCounters } from '../../src/adapters/memory/MemoryRateLimitCounters.js';
import { SupervisedRateLimitCounters, serveRateLimits } from '../../src/adapters/ipc/SupervisedRateLimitCounters.js';
import { StoreUnavailableError } from '../../src/application/ports/StoreUnavailableError.js';
import { ipcPair } from '../support/ipcPair.js';
import { SqliteRateLimitCounters } from '../../src/adapters/sqlite/SqliteRateLimitCounters.js';
import { tempDir } from '../support/tempStore.js';
import { skipLine } from '../support/integration.js';
import { rateLimitCountersContract } from './rateLimitCounters.contract.js';
import { countStatements, postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../support/postgresLog.js';
import { PostgresRateLimitCounters } from '../../src/adapters/postgres/PostgresRateLimitCounters.js';

rateLimitCountersContract('memory (embedded)', async (limits) => ({
  counters: new MemoryRateLimitCounters(limits),
  dispose: async () => undefined,
}), { leases: false, take: true });

rateLimitCountersContract('supervised (API_WORKERS: asked over IPC, counted by the supervisor)', async (limits) => {
  const { worker, supervisor } = ipcPair();
  const forget = serveRateLimits(new MemoryRateLimitCounters(limits), supervisor);
  const counters = new SupervisedRateLimitCounters(limits, worker);
  return {
    counters,
    dispose: async () => {
      await counters.close();
      await forget();
    },
  };
}, { leases: false, take: true });

describe('SupervisedRateLimitCounters: the API workers of one supervisor', () => {
  const limits = { hourly: 3, daily: 100, concurrent: 2 };

  it('count together, and a worker that is gone gives its slots back', async () => {
    const shared = new MemoryRateLimitCounters(limits);
    const [a, b] = [ipcPair(), ipcPair()];
    const forgetA = serveRateLimits(shared, a.supervisor);
    serveRateLimits(shared, b.supervisor);
    const [workerA, workerB] = [new SupervisedRateLimitCounters(limits, a.worker), new SupervisedRateLimitCounters(limits, b.worker)];
    const now = new Date('2026-01-01T10:00:00.000Z');
    expect((await workerA.consume('k', now)).hourly.remaining).to.equal(2);
    expect((await workerB.consume('k', now)).hourly.remaining).to.equal(1);
    expect((await workerA.consume('k', now)).allowed).to.equal(true);
    expect((await workerB.consume('k', now)).allowed).to.equal(false);
    // Worker A takes both slots, then dies holding them.
    expect(await workerA.acquire('k')).to.be.a('function');
    expect(await workerA.acquire('k')).to.be.a('function');
    expect(await workerB.acquire('k')).to.equal(null);
    a.cut();
    await forgetA();
    expect(await workerB.acquire('k')).to.be.a('function');
  });

  it('sends the questions of one turn as one message, answered with one; releases go with the next', async () => {
    const { worker, supervisor } = ipcPair();
    const sent = { worker: 0, supervisor: 0 };
    for (const [name, end] of [['worker', worker], ['supervisor', supervisor]] as const) {
      const send = end.send.bind(end);
      end.send = (message: unknown) => {
        sent[name] += 1;
        return send(message);
      };
    }
    const forget = serveRateLimits(new MemoryRateLimitCounters({ ...limits, hourly: 4 }), supervisor);
    const counters = new SupervisedRateLimitCounters({ ...limits, hourly: 4 }, worker);
    const now = new Date('2026-01-01T10:00:00.000Z');
    const admitted = await Promise.all(['k', 'k', 'k', 'other'].map((key) => counters.admit(key, now)));
    expect(admitted.map(({ decision }) => decision.hourly.remaining)).to.deep.equal([3, 2, 1, 3]);
    // Two slots per key: the third request of `k` was counted but got none.
    expect(admitted.map(({ release }) => release !== null)).to.deep.equal([true, true, false, true]);
    expect(sent).to.deep.equal({ worker: 1, supervisor: 1 });
    await admitted[0]!.release!();
    await admitted[1]!.release!();
    const next = await counters.admit('k', now);
    expect(next.decision.hourly.remaining, 'the fourth of four').to.equal(0);
    expect(next.release, 'both slots were given back before it was asked').to.be.a('function');
    expect(sent).to.deep.equal({ worker: 2, supervisor: 2 });
    await counters.close();
    await forget();
  });

  it('refuses (503 store busy) when the supervisor does not answer, never lets the request pass', async () => {
    const { worker } = ipcPair();
    const counters = new SupervisedRateLimitCounters(limits, worker, 50);
    const refused = await counters.consume('k', new Date()).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(StoreUnavailableError);
    const cut = ipcPair();
    cut.cut();
    const closed = await new SupervisedRateLimitCounters(limits, cut.worker).acquire('k').catch((error: unknown) => error);
    expect(closed).to.be.instanceOf(StoreUnavailableError);
  });
});

rateLimitCountersContract('SQLite (embedded, shared by the processes on a DATA_DIR)', async (limits, options) => {
  const dir = tempDir('chronicle-rate-limits-');
  const counters = SqliteRateLimitCounters.open(`${dir.path}/rate-limits.sqlite`, limits, options);
  return {
    counters,
    dispose: async () => {
      await counters.close();
      dir.dispose();
    },
  };
}, { leases: true });

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  rateLimitCountersContract('MongoDB', async (limits, options) => {
    // A database of its own per test (the read models' one, as in production), dropped afterwards.
    const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
    const { MongoRateLimitCounters } = await import('../../src/adapters/mongodb/MongoRateLimitCounters.js');
    const store = await MongoReadModelStore.connect(mongoUrl, `chronicle_test_${randomUUID().slice(0, 8)}`);
    const counters = await MongoRateLimitCounters.create(store.database, limits, options);
    return {
      counters,
      dispose: async () => {
        await store.dropDatabase();
        await store.close();
      },
    };
  }, { leases: true });
} else {
  skipLine('RateLimitCounters contract: MongoDB', 'MONGODB_URL');
}

if (postgresTestUrl()) {
  const database = databaseForThisFile();
  rateLimitCountersContract('PostgreSQL (shared by every process on the database)', async (limits, options) => {
    const pool = await migratedLogPool((await database()).url);
    const counters = new PostgresRateLimitCounters(pool, limits, options);
    return {
      counters,
      dispose: async () => {
        await counters.close();
        await pool.end();
      },
    };
  }, { leases: true, take: true });

  describe('PostgresRateLimitCounters.admit: one statement for the requests of a key in a turn', () => {
    const now = new Date('2026-03-04T10:20:30.000Z');
    /** Counters of 100 an hour and a day and three slots on a migrated database, a fresh key, closed afterwards. */
    const withCounters = async (use: (counters: PostgresRateLimitCounters, k: string, pool: pg.Pool) => Promise<void>): Promise<void> => {
      const pool = await migratedLogPool((await database()).url);
      const counters = new PostgresRateLimitCounters(pool, { hourly: 100, daily: 100, concurrent: 3 });
      try {
        await use(counters, `key-${randomUUID()}`, pool);
      } finally {
        await counters.close();
        await pool.end();
      }
    };

    it('tries the other slots when the one it drew is held, and counts a request that finds none', () =>
      withCounters(async (counters, k) => {
        // Three admissions hold the three slots, whichever each drew first.
        const held = [await counters.admit(k, now), await counters.admit(k, now), await counters.admit(k, now)];
        expect(held.map((a) => typeof a.release)).to.deep.equal(['function', 'function', 'function']);
        const none = await counters.admit(k, now);
        expect([none.decision.allowed, none.release, none.decision.hourly.remaining]).to.deep.equal([true, null, 96]);
        expect(await counters.acquire(k)).to.equal(null);
        await held[1]!.release!();
        const again = await counters.admit(k, now);
        expect(again.release, 'the slot given back').to.be.a('function');
        expect((await counters.consume(k, now)).daily.remaining, 'six requests counted in the day').to.equal(94);
      }));

    it('hands out no more slots than there are to simultaneous admissions', () =>
      withCounters(async (counters, k) => {
        const admitted = await Promise.all(Array.from({ length: 10 }, () => counters.admit(k, now)));
        expect(admitted.filter((a) => a.release !== null)).to.have.length(3);
        expect(admitted.map((a) => a.decision.hourly.remaining).sort((a, b) => a - b)).to.deep.equal([90, 91, 92, 93, 94, 95, 96, 97, 98, 99]);
      }));

    it('counts the requests of one key that come in one turn with one statement, each as if counted in turn', () =>
      withCounters(async (counters, k, pool) => {
        const admits = countStatements(pool, 'WITH hourly AS');
        const strict = counters.withLimits({ hourly: 5, daily: 100, concurrent: 3 });
        const admitted = await Promise.all(Array.from({ length: 8 }, () => strict.admit(k, now)));
        expect(admits.count, 'one statement').to.equal(1);
        expect(admitted.map((a) => a.decision.allowed)).to.deep.equal([true, true, true, true, true, false, false, false]);
        expect(admitted.map((a) => a.decision.hourly.remaining)).to.deep.equal([4, 3, 2, 1, 0, 0, 0, 0]);
        // Three slots: the first three requests hold them; the other two allowed find none.
        expect(admitted.map((a) => typeof a.release)).to.deep.equal(['function', 'function', 'function', 'object', 'object', 'object', 'object', 'object']);
        expect((await counters.consume(k, now)).daily.remaining, 'eight counted in the day, and this one').to.equal(91);
        await Promise.all(admitted.map((a) => a.release?.()));
        const other = `key-${randomUUID()}`;
        const apart = await Promise.all([counters.admit(k, now), counters.admit(other, now), counters.admit(k, now)]);
        expect(admits.count, 'one statement more for each key').to.equal(3);
        expect(apart.map((a) => a.decision.hourly.remaining)).to.deep.equal([90, 99, 89]);
        expect(apart.map((a) => typeof a.release), 'the slots given back are free').to.deep.equal(['function', 'function', 'function']);
      }));

    it('gives back the slots released in one turn with one statement, each release settled by it', () =>
      withCounters(async (counters, k, pool) => {
        const deletes = countStatements(pool, 'DELETE FROM rate_limits WHERE key IN');
        const held = await Promise.all([counters.admit(k, now), counters.admit(k, now), counters.admit(k, now)]);
        expect(held.every((a) => a.release !== null)).to.equal(true);
        await Promise.all(held.map((a) => a.release!()));
        expect(deletes.count).to.equal(1);
        const again = await Promise.all([counters.admit(k, now), counters.admit(k, now), counters.admit(k, now)]);
        expect(again.map((a) => typeof a.release), 'all three free again').to.deep.equal(['function', 'function', 'function']);
      }));

    it('gives back at close a slot released in the same turn', async () => {
      const url = (await database()).url;
      const k = `key-${randomUUID()}`;
      const limits = { hourly: 100, daily: 100, concurrent: 1 };
      // Counters that own their pool (production's), which closing ends.
      const first = new PostgresRateLimitCounters(await migratedLogPool(url), limits, { ownsPool: true });
      const { release } = await first.admit(k, now);
      const released = release!();
      await first.close();
      await released;
      const otherPool = await migratedLogPool(url);
      const other = new PostgresRateLimitCounters(otherPool, limits);
      try {
        expect((await other.admit(k, now)).release, 'the slot is free').to.be.a('function');
      } finally {
        await other.close();
        await otherPool.end();
      }
    });

    it('judges other limits on the same rows (withLimits), with its own admit', () =>
      withCounters(async (counters, k) => {
        const strict = counters.withLimits({ hourly: 1, daily: 100, concurrent: 1 });
        expect((await counters.admit(k, now)).decision.hourly.remaining).to.equal(99);
        const refused = await strict.admit(k, now);
        expect([refused.decision.allowed, refused.decision.exceeded, refused.release]).to.deep.equal([false, ['hourly'], null]);
        expect((await counters.consume(k, now)).hourly.remaining, 'both counted once on the same row').to.equal(97);
      }));
  });

  describe('PostgresRateLimitCounters: two processes on one database', () => {
    /** Counters of `limits` on two pools of one migrated database (two processes), a fresh key, closed afterwards. */
    const withTwoProcesses = async (
      limits: { hourly: number; daily: number; concurrent: number },
      use: (a: PostgresRateLimitCounters, b: PostgresRateLimitCounters, k: string) => Promise<void>,
    ): Promise<void> => {
      const url = (await database()).url;
      const [poolA, poolB] = [await migratedLogPool(url), await migratedLogPool(url)];
      const [a, b] = [new PostgresRateLimitCounters(poolA, limits), new PostgresRateLimitCounters(poolB, limits)];
      try {
        await use(a, b, `key-${randomUUID()}`);
      } finally {
        await Promise.all([a.close(), b.close()]);
        await Promise.all([poolA.end(), poolB.end()]);
      }
    };
    const now = new Date('2026-03-04T10:20:30.000Z');

    it('count the windows and hand out the slots together', () =>
      withTwoProcesses({ hourly: 3, daily: 100, concurrent: 2 }, async (a, b, k) => {
        const allowed = [await a.consume(k, now), await b.consume(k, now), await a.consume(k, now), await b.consume(k, now)].map((d) => d.allowed);
        expect(allowed).to.deep.equal([true, true, true, false]);
        const first = await a.acquire(k);
        expect(await b.acquire(k)).to.be.a('function');
        expect(await a.acquire(k)).to.equal(null);
        await first!();
        expect(await b.acquire(k)).to.be.a('function');
      }));

    it('admit and release one key’s requests side by side without waiting for each other for good', () =>
      withTwoProcesses({ hourly: 100_000, daily: 100_000, concurrent: 4 }, async (a, b, k) => {
        // Batches of admissions and releases from both, overlapping: a lock taken in two orders would deadlock, and
        // PostgreSQL would fail one of the statements (after deadlock_timeout), failing its admission or release here.
        let admitted = 0;
        for (let round = 0; round < 20; round++) {
          const admissions = await Promise.all([a, b, a, b, a, b].map((counters) => counters.admit(k, now)));
          admitted += admissions.length;
          await Promise.all(admissions.map((admission) => admission.release?.()));
        }
        expect((await a.consume(k, now)).hourly.remaining).to.equal(100_000 - admitted - 1);
        const all = await Promise.all([a.acquire(k), b.acquire(k), a.acquire(k), b.acquire(k)]);
        expect(all.every((release) => typeof release === 'function'), 'every slot free again').to.equal(true);
      }));
  });
} else {
  skipLine('RateLimitCounters contract: PostgreSQL', 'POSTGRES_TEST_URL');
}

describe('SqliteRateLimitCounters: two connections on one file (two processes on one DATA_DIR)', () => {
  it('count the windows and hand out the slots together', async () => {
    const dir = tempDir('chronicle-rate-limits-');
    const file = `${dir.path}/rate-limits.sqlite`;
    const limits = { hourly: 3, daily: 100, concurrent: 2 };
    const a = SqliteRateLimitCounters.open(file, limits);
    const b = SqliteRateLimitCounters.open(file, limits);
    try {
      const now = new Date('2026-03-04T10:20:30.000Z');
      const allowed = [await a.consume('k', now), await b.consume('k', now), await a.consume('k', now), await b.consume('k', now)].map((d) => d.allowed);
      expect(allowed).to.deep.equal([true, true, true, false]);
      const first = await a.acquire('k');
      expect(await b.acquire('k')).to.be.a('function');
      expect(await a.acquire('k')).to.equal(null);
      await first!();
      expect(await b.acquire('k')).to.be.a('function');
    } finally {
      await a.close();
      await b.close();
      dir.dispose();
    }
  });
});
