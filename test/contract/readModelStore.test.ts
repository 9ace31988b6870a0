import { randomUUID } from 'node:crypto';
import { MemoryReadModelStore } from '../../src/adapters/memory/MemoryReadModelStore.js';
import { readModelStoreContract } from './readModelStore.contract.js';
import { skipLine } from '../support/integration.js';

readModelStoreContract('memory (embedded)', async () => {
  const store = new MemoryReadModelStore();
  return { store, dispose: () => store.close() };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  readModelStoreContract('MongoDB', async () => {
    // A database of its own per test, dropped afterwards.
    const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
    const store = await MongoReadModelStore.connect(mongoUrl, `chronicle_test_${randomUUID().slice(0, 8)}`);
    return {
      store,
      dispose: async () => {
        await store.dropDatabase();
        await store.close();
      },
    };
  });
} else {
  skipLine('ReadModelStore contract: MongoDB', 'MONGODB_URL');
}
