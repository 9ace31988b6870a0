import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteIdempotencyStore } from '../../src/adapters/sqlite/SqliteIdempotencyStore.js';
import { skipLine } from '../support/integration.js';
import { tempDir } from '../support/tempStore.js';
import { idempotencyStoreContract } from './idempotencyStore.contract.js';
import { postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../support/postgresLog.js';
import { PostgresIdempotencyStore } from '../../src/adapters/postgres/PostgresIdempotencyStore.js';

idempotencyStoreContract('SQLite (its own connection)', async () => {
  const dir = tempDir('chronicle-idempotency-');
  const file = join(dir.path, 'chronicle.sqlite');
  const store = SqliteIdempotencyStore.open(file);
  return {
    store,
    reopen: async () => SqliteIdempotencyStore.open(file),
    dispose: async () => {
      await store.close();
      dir.dispose();
    },
  };
});

idempotencyStoreContract('SQLite (on the event store’s connection)', async () => {
  const dir = tempDir('chronicle-idempotency-');
  const file = join(dir.path, 'chronicle.sqlite');
  const eventStore = SqliteEventStore.open(file);
  const store = new SqliteIdempotencyStore(eventStore.db);
  return {
    store,
    reopen: async () => SqliteIdempotencyStore.open(file),
    dispose: async () => {
      await store.close();
      await eventStore.close();
      dir.dispose();
    },
  };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  idempotencyStoreContract('MongoDB', async () => {
    // A database of its own per test (the read models' one, as in production), dropped afterwards.
    const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
    const { MongoIdempotencyStore } = await import('../../src/adapters/mongodb/MongoIdempotencyStore.js');
    const dbName = `chronicle_test_${randomUUID().slice(0, 8)}`;
    const readModels = await MongoReadModelStore.connect(mongoUrl, dbName);
    const others: { close(): Promise<void> }[] = [];
    return {
      store: await MongoIdempotencyStore.create(readModels.database),
      reopen: async () => {
        const other = await MongoReadModelStore.connect(mongoUrl, dbName);
        others.push(other);
        return MongoIdempotencyStore.create(other.database);
      },
      dispose: async () => {
        await Promise.all(others.map((other) => other.close()));
        await readModels.dropDatabase();
        await readModels.close();
      },
    };
  });
} else {
  skipLine('IdempotencyStore contract: MongoDB', 'MONGODB_URL');
}

if (postgresTestUrl()) {
  const database = databaseForThisFile();
  idempotencyStoreContract('PostgreSQL', async () => {
    const { url } = await database();
    const pools = [await migratedLogPool(url)];
    return {
      store: new PostgresIdempotencyStore(pools[0]!),
      reopen: async () => {
        const pool = await migratedLogPool(url);
        pools.push(pool);
        return new PostgresIdempotencyStore(pool);
      },
      dispose: async () => void (await Promise.all(pools.map((pool) => pool.end()))),
    };
  });
} else {
  skipLine('IdempotencyStore contract: PostgreSQL', 'POSTGRES_TEST_URL');
}

describe('SqliteIdempotencyStore: the file’s write lock held by another process', () => {
  it('claims and completes once it is free, the event loop serving meanwhile', async () => {
    const dir = tempDir('chronicle-idempotency-');
    const file = join(dir.path, 'chronicle.sqlite');
    const store = SqliteIdempotencyStore.open(file);
    const other = SqliteIdempotencyStore.open(file);
    const holder = (other as unknown as { db: { exec: (sql: string) => void; inTransaction: boolean } }).db;
    const now = new Date('2026-01-01T00:00:00.000Z');
    try {
      holder.exec('BEGIN IMMEDIATE');
      let claimed = false;
      const claim = store.claim({ companyId: 'c', key: 'k', fingerprint: 'fp', now, claimTtlMs: 60_000 }).then((outcome) => {
        claimed = true;
        return outcome;
      });
      let timers = 0;
      for (let i = 0; i < 4; i++) await new Promise((resolve) => setTimeout(resolve, 5)).then(() => (timers += 1));
      expect([timers, claimed]).to.deep.equal([4, false]);
      holder.exec('COMMIT');
      const outcome = await claim;
      expect(outcome.kind).to.equal('claimed');
      holder.exec('BEGIN IMMEDIATE');
      const completed = store.complete({
        companyId: 'c',
        key: 'k',
        token: (outcome as { token: string }).token,
        response: { status: 201, body: { ok: true }, headers: {} },
        now,
        retentionMs: 60_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 10));
      holder.exec('COMMIT');
      expect(await completed).to.equal(true);
      expect((await other.claim({ companyId: 'c', key: 'k', fingerprint: 'fp', now, claimTtlMs: 60_000 })).kind).to.equal('completed');
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      await store.close();
      await other.close();
      dir.dispose();
    }
  });
});
