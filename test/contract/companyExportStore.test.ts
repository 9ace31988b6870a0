import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type pg from 'pg';
import { MemoryCompanyExportStore } from '../../src/adapters/memory/MemoryCompanyExportStore.js';
import { SqliteCompanyExportStore } from '../../src/adapters/sqlite/SqliteCompanyExportStore.js';
import { PostgresCompanyExportStore } from '../../src/adapters/postgres/PostgresCompanyExportStore.js';
import { EXPORTS_SCHEMA, exportMigrations } from '../../src/adapters/postgres/exportMigrations.js';
import { migratePostgres } from '../../src/adapters/postgres/migratePostgres.js';
import { createPostgresPool } from '../../src/adapters/postgres/postgresPool.js';
import type { CompanyExportStore } from '../../src/application/ports/CompanyExportStore.js';
import { skipLine } from '../support/integration.js';
import { postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile } from '../support/postgresLog.js';
import { tempDir } from '../support/tempStore.js';
import { companyExportStoreContract } from './companyExportStore.contract.js';

companyExportStoreContract('memory', async () => ({ store: new MemoryCompanyExportStore(), reopen: null, dispose: async () => undefined }));

companyExportStoreContract('SQLite (DATA_DIR/exports.sqlite)', async () => {
  const dir = tempDir('chronicle-exports-');
  const file = join(dir.path, 'exports.sqlite');
  const opened: CompanyExportStore[] = [SqliteCompanyExportStore.open(file)];
  return {
    store: opened[0]!,
    reopen: async () => {
      const other = SqliteCompanyExportStore.open(file);
      opened.push(other);
      return other;
    },
    dispose: async () => {
      await Promise.all(opened.map((store) => store.close()));
      dir.dispose();
    },
  };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  companyExportStoreContract('MongoDB', async () => {
    const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
    const { MongoCompanyExportStore } = await import('../../src/adapters/mongodb/MongoCompanyExportStore.js');
    const dbName = `chronicle_test_${randomUUID().slice(0, 8)}`;
    const readModels = await MongoReadModelStore.connect(mongoUrl, dbName);
    const others: { close(): Promise<void> }[] = [];
    return {
      store: await MongoCompanyExportStore.create(readModels.database),
      reopen: async () => {
        const other = await MongoReadModelStore.connect(mongoUrl, dbName);
        others.push(other);
        return MongoCompanyExportStore.create(other.database);
      },
      dispose: async () => {
        await Promise.all(others.map((other) => other.close()));
        await readModels.dropDatabase();
        await readModels.close();
      },
    };
  });
} else {
  skipLine('CompanyExportStore contract: MongoDB', 'MONGODB_URL');
}

if (postgresTestUrl()) {
  const database = databaseForThisFile();
  companyExportStoreContract('PostgreSQL', async () => {
    const { url } = await database();
    const pools: pg.Pool[] = [];
    const open = async () => {
      const pool = createPostgresPool(url, { max: 4, applicationName: 'chronicle-test' });
      pools.push(pool);
      await migratePostgres(pool, EXPORTS_SCHEMA, exportMigrations);
      return new PostgresCompanyExportStore(pool);
    };
    return {
      store: await open(),
      reopen: open,
      dispose: async () => void (await Promise.all(pools.map((pool) => pool.end()))),
    };
  });
} else {
  skipLine('CompanyExportStore contract: PostgreSQL', 'POSTGRES_TEST_URL');
}
