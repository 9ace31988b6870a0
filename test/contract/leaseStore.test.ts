import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MemoryLeaseStore } from '../../src/adapters/memory/MemoryLeaseStore.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import { skipLine } from '../support/integration.js';
import { postgresTestUrl } from '../support/postgres.js';
import { postgresReadModelStores } from '../support/postgresReadModels.js';
import { tempDir } from '../support/tempStore.js';
import { leaseStoreContract } from './leaseStore.contract.js';

leaseStoreContract('memory', async () => {
  const store = new MemoryLeaseStore();
  return { a: store, b: store, dispose: async () => undefined };
});

leaseStoreContract('SQLite (two connections to one read-models file)', async () => {
  const dir = tempDir('chronicle-leases-');
  const file = join(dir.path, 'read-models.sqlite');
  const a = SqliteReadModelStore.open(file);
  const b = SqliteReadModelStore.open(file);
  return {
    a: a.leases,
    b: b.leases,
    dispose: async () => {
      await a.close();
      await b.close();
      dir.dispose();
    },
  };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  leaseStoreContract('MongoDB (two clients on one database)', async () => {
    const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
    const database = `chronicle_test_${randomUUID().slice(0, 8)}`;
    const a = await MongoReadModelStore.connect(mongoUrl, database);
    const b = await MongoReadModelStore.connect(mongoUrl, database);
    return {
      a: a.leases,
      b: b.leases,
      dispose: async () => {
        await a.dropDatabase();
        await a.close();
        await b.close();
      },
    };
  });
} else {
  skipLine('LeaseStore contract: MongoDB', 'MONGODB_URL');
}

const postgresUrl = postgresTestUrl();
if (postgresUrl) {
  const stores = postgresReadModelStores(postgresUrl);
  leaseStoreContract('PostgreSQL (two pools on one read-model schema)', async () => {
    const a = await stores.open();
    const b = await stores.open({ schema: a.schema });
    return {
      a: a.store.leases,
      b: b.store.leases,
      dispose: async () => {
        await b.store.close();
        await a.dispose();
      },
    };
  });
  after(() => stores.dropDatabase());
} else {
  skipLine('LeaseStore contract: PostgreSQL', 'POSTGRES_TEST_URL');
}
