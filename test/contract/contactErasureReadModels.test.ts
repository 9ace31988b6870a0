import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import { tempDir } from '../support/tempStore.js';
import { skipLine } from '../support/integration.js';
import { postgresTestUrl } from '../support/postgres.js';
import { postgresReadModelStores } from '../support/postgresReadModels.js';
import { contactErasureReadModelsContract } from './contactErasureReadModels.contract.js';

contactErasureReadModelsContract('memory', async () => {
  const store = new MemoryReadModelStore();
  return { store, dispose: () => store.close() };
});

contactErasureReadModelsContract('SQLite (embedded)', async () => {
  const dir = tempDir('chronicle-contact-erasure-');
  const store = SqliteReadModelStore.open(join(dir.path, 'read-models.sqlite'));
  return {
    store,
    dispose: async () => {
      await store.close();
      dir.dispose();
    },
  };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  contactErasureReadModelsContract('MongoDB', async () => {
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
  skipLine('Contact erasure read models: MongoDB', 'MONGODB_URL');
}

const postgresUrl = postgresTestUrl();
if (postgresUrl) {
  const stores = postgresReadModelStores(postgresUrl);
  contactErasureReadModelsContract('PostgreSQL', () => stores.open());
  after(() => stores.dropDatabase());
} else {
  skipLine('Contact erasure read models: PostgreSQL', 'POSTGRES_TEST_URL');
}
