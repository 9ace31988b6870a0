import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { join } from 'node:path';
import { MemoryLeaseStore } from '../../src/adapters/memory/MemoryLeaseStore.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import { skipLine } from '../support/integration.js';
import { tempDir } from '../support/tempStore.js';
import { leaseStoreContract } from './leaseStore.contract.js';
import { postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../support/postgresLog.js';
import { PostgresLeaseStore } from '../../src/adapters/postgres/PostgresLeaseStore.js';

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

  leaseStoreContract('PostgreSQL (two read-model stores opened on their own: the leases of their schema)', async () => {
    const { PostgresReadModelStore } = await import('../../src/adapters/postgres/PostgresReadModelStore.js');
    const { url } = await database();
    const schema = `leases_${randomUUID().slice(0, 8)}`;
    const a = await PostgresReadModelStore.connect(url, { schema, maxConnections: 2 });
    const b = await PostgresReadModelStore.connect(url, { schema, maxConnections: 2 });
    return { a: a.leases, b: b.leases, dispose: async () => void (await Promise.all([a.close(), b.close()])) };
  });

  describe('PostgresLeaseStore: how long a lease went unrenewed, on the database’s clock', () => {
    it('counts from each claim and renewal on the server, whatever time the holder writes', async () => {
      const pool = await migratedLogPool((await database()).url);
      const leases = new PostgresLeaseStore(pool);
      const name = `lease-${randomUUID()}`;
      // A holder whose clock runs a day ahead writes times of tomorrow.
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
      const holder = { owner: 'A', role: 'projector', pid: 1, host: 'ahead', scope: null, acquiredAt: tomorrow, renewedAt: tomorrow };
      try {
        expect(await leases.silentForMs(name)).to.equal(null);
        expect(await leases.claim(name, holder, null)).to.equal(true);
        await new Promise((resolve) => setTimeout(resolve, 150));
        const silent = (await leases.silentForMs(name))!;
        expect(silent).to.be.within(140, 5_000);
        expect(await leases.renew(name, 'A', tomorrow)).to.equal(true);
        expect(await leases.silentForMs(name)).to.be.below(silent);
      } finally {
        await pool.end();
      }
    });
  });
} else {
  skipLine('LeaseStore contract: PostgreSQL', 'POSTGRES_TEST_URL');
}
