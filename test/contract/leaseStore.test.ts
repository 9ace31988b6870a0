import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MemoryLeaseStore } from '../../src/adapters/memory/MemoryLeaseStore.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import { skipLine } from '../support/integration.js';
import { tempDir } from '../support/tempStore.js';
import { leaseStoreContract } from './leaseStore.contract.js';
import { postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../support/postgresLog.js';
import { PostgresLeaseStore } from '../../src/adapters/postgres/PostgresLeaseStore.js';

/** The real clock, taken before any test moves \`Date\`. */
const realDate = Date;
const realNow = (): number => performance.timeOrigin + performance.now();

leaseStoreContract('memory', async () => {
  // The store's clock stands for a database server's: unlike \`Date\`, a claimant cannot move it.
  const store = new MemoryLeaseStore({ now: () => new realDate(realNow()) });
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

if (postgresTestUrl()) {
  const database = databaseForThisFile();
  leaseStoreContract('PostgreSQL (two pools on one database)', async () => {
    const { url } = await database();
    const [a, b] = [await migratedLogPool(url), await migratedLogPool(url)];
    return {
      a: new PostgresLeaseStore(a),
      b: new PostgresLeaseStore(b),
      dispose: async () => void (await Promise.all([a.end(), b.end()])),
    };
  });
} else {
  skipLine('LeaseStore contract: PostgreSQL', 'POSTGRES_TEST_URL');
}
