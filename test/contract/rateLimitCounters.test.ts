import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { MemoryRateLimitCounters } from '../../src/adapters/memory/MemoryRateLimitCounters.js';
import { SqliteRateLimitCounters } from '../../src/adapters/sqlite/SqliteRateLimitCounters.js';
import { tempDir } from '../support/tempStore.js';
import { skipLine } from '../support/integration.js';
import { rateLimitCountersContract } from './rateLimitCounters.contract.js';

rateLimitCountersContract('memory (embedded)', async (limits) => ({
  counters: new MemoryRateLimitCounters(limits),
  dispose: async () => undefined,
}), { leases: false });

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
