import { randomUUID } from 'node:crypto';
import { MemoryRateLimitCounters } from '../../src/adapters/memory/MemoryRateLimitCounters.js';
import { skipLine } from '../support/integration.js';
import { rateLimitCountersContract } from './rateLimitCounters.contract.js';

rateLimitCountersContract('memory (embedded)', async (limits, options) => ({
  counters: new MemoryRateLimitCounters(limits, options),
  dispose: async () => undefined,
}), { leases: false });

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
