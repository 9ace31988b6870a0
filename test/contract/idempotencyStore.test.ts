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

  describe('PostgresIdempotencyStore: pruning expired keys', () => {
    it('leaves a key that a claim took over while the prune was deciding', async () => {
      const pool = await migratedLogPool((await database()).url);
      const store = new PostgresIdempotencyStore(pool);
      const companyId = randomUUID();
      const t0 = new Date('2026-03-01T10:00:00.000Z');
      const later = new Date(t0.getTime() + 120_000);
      const other = await pool.connect();
      try {
        await store.claim({ companyId, key: 'k', fingerprint: 'fp', now: t0, claimTtlMs: 60_000 });
        // Another request takes the expired key over; its transaction is still open when the prune runs.
        await other.query('BEGIN');
        await other.query("UPDATE idempotency_keys SET token = 'taken-over', expires_at = $3 WHERE company_id = $1 AND key = $2", [
          companyId,
          'k',
          new Date(later.getTime() + 60_000),
        ]);
        const prune = (store as unknown as { pruneExpired: (now: Date) => Promise<number> }).pruneExpired(later);
        await new Promise((resolve) => setTimeout(resolve, 100));
        await other.query('COMMIT');
        // Other tests' expired keys may go; this one was claimed again once the prune got to it.
        await prune;
        const { rows } = await pool.query('SELECT token FROM idempotency_keys WHERE company_id = $1', [companyId]);
        expect(rows).to.deep.equal([{ token: 'taken-over' }]);
      } finally {
        other.release();
        await pool.end();
      }
    });
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
