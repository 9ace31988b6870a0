import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type pg from 'pg';
import { join } from 'node:path';
import { MemoryConsoleSessionStore } from '../../src/adapters/memory/MemoryConsoleSessionStore.js';
import { MemoryUsageCounters } from '../../src/adapters/memory/MemoryUsageCounters.js';
import { SqliteConsoleSessionStore } from '../../src/adapters/sqlite/SqliteConsoleSessionStore.js';
import { SqliteUsageCounters } from '../../src/adapters/sqlite/SqliteUsageCounters.js';
import { PostgresConsoleSessionStore } from '../../src/adapters/postgres/PostgresConsoleSessionStore.js';
import { PostgresUsageCounters } from '../../src/adapters/postgres/PostgresUsageCounters.js';
import { CONSOLE_SCHEMA, consoleMigrations } from '../../src/adapters/postgres/consoleMigrations.js';
import { migratePostgres } from '../../src/adapters/postgres/migratePostgres.js';
import { createPostgresPool } from '../../src/adapters/postgres/postgresPool.js';
import { skipLine } from '../support/integration.js';
import { postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile } from '../support/postgresLog.js';
import { tempDir } from '../support/tempStore.js';
import { consoleSessionStoreContract } from './consoleSessionStore.contract.js';
import { usageCountersContract } from './usageCounters.contract.js';

consoleSessionStoreContract('memory', async () => ({ store: new MemoryConsoleSessionStore(), reopen: null, dispose: async () => undefined }), { shared: false });
usageCountersContract('memory', async () => ({ counters: new MemoryUsageCounters(), reopen: null, dispose: async () => undefined }), { shared: false });

/** One console file per test, and every store opened on it closed at the end. */
const sqliteFixture = <S extends { close(): Promise<void> }>(open: (file: string) => S) => {
  const dir = tempDir('chronicle-console-');
  const file = join(dir.path, 'console.sqlite');
  const opened: S[] = [open(file)];
  return {
    first: opened[0]!,
    reopen: async () => {
      const other = open(file);
      opened.push(other);
      return other;
    },
    dispose: async () => {
      await Promise.all(opened.map((store) => store.close()));
      dir.dispose();
    },
  };
};

consoleSessionStoreContract('SQLite (DATA_DIR/console.sqlite)', async () => {
  const fixture = sqliteFixture((file) => SqliteConsoleSessionStore.open(file));
  return { store: fixture.first, reopen: fixture.reopen, dispose: fixture.dispose };
});
usageCountersContract('SQLite (DATA_DIR/console.sqlite)', async () => {
  const fixture = sqliteFixture((file) => SqliteUsageCounters.open(file));
  return { counters: fixture.first, reopen: fixture.reopen, dispose: fixture.dispose };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  /** A database of its own per test (the read models' one, as in production), dropped afterwards. */
  const mongoFixture = async <S>(create: (db: Db) => Promise<S>) => {
    const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
    const dbName = `chronicle_test_${randomUUID().slice(0, 8)}`;
    const readModels = await MongoReadModelStore.connect(mongoUrl, dbName);
    const others: { close(): Promise<void> }[] = [];
    return {
      first: await create(readModels.database),
      reopen: async () => {
        const other = await MongoReadModelStore.connect(mongoUrl, dbName);
        others.push(other);
        return create(other.database);
      },
      dispose: async () => {
        await Promise.all(others.map((other) => other.close()));
        await readModels.dropDatabase();
        await readModels.close();
      },
    };
  };
  consoleSessionStoreContract('MongoDB', async () => {
    const { MongoConsoleSessionStore } = await import('../../src/adapters/mongodb/MongoConsoleSessionStore.js');
    const fixture = await mongoFixture((db) => MongoConsoleSessionStore.create(db));
    return { store: fixture.first, reopen: fixture.reopen, dispose: fixture.dispose };
  });
  usageCountersContract('MongoDB', async () => {
    const { MongoUsageCounters } = await import('../../src/adapters/mongodb/MongoUsageCounters.js');
    const fixture = await mongoFixture((db) => MongoUsageCounters.create(db));
    return { counters: fixture.first, reopen: fixture.reopen, dispose: fixture.dispose };
  });
} else {
  skipLine('ConsoleSessionStore and UsageCounters contracts: MongoDB', 'MONGODB_URL');
}

if (postgresTestUrl()) {
  const database = databaseForThisFile();
  /** Pools on the test database with the console's part of the schema, each ended at the end. */
  const postgresFixture = async <S>(create: (pool: pg.Pool) => S) => {
    const { url } = await database();
    const pools: pg.Pool[] = [];
    const pool = async () => {
      const made = createPostgresPool(url, { max: 4, applicationName: 'chronicle-test' });
      pools.push(made);
      await migratePostgres(made, CONSOLE_SCHEMA, consoleMigrations);
      return made;
    };
    return {
      first: create(await pool()),
      reopen: async () => create(await pool()),
      dispose: async () => void (await Promise.all(pools.map((made) => made.end()))),
    };
  };
  consoleSessionStoreContract('PostgreSQL', async () => {
    const fixture = await postgresFixture((pool) => new PostgresConsoleSessionStore(pool));
    return { store: fixture.first, reopen: fixture.reopen, dispose: fixture.dispose };
  });
  usageCountersContract('PostgreSQL', async () => {
    const fixture = await postgresFixture((pool) => new PostgresUsageCounters(pool));
    return { counters: fixture.first, reopen: fixture.reopen, dispose: fixture.dispose };
  });
} else {
  skipLine('ConsoleSessionStore and UsageCounters contracts: PostgreSQL', 'POSTGRES_TEST_URL');
}
