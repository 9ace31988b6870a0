import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PostgresReadModelStore, type PostgresReadModelStoreOptions } from '../../src/adapters/postgres/PostgresReadModelStore.js';
import { freshPostgresDatabase, type FreshDatabase } from './postgres.js';

/** A PostgreSQL read-model store in a schema of its own, and what drops it. */
export interface PostgresReadModelFixture {
  readonly store: PostgresReadModelStore;
  readonly url: string;
  readonly schema: string;
  readonly dispose: () => Promise<void>;
}

/**
 * PostgreSQL read-model stores for one test file: one fresh database on the
 * POSTGRES_TEST_URL server (made at the first `open`, dropped by `dropDatabase`),
 * and a fresh schema per store (a database per test would cost half a second each).
 */
export const postgresReadModelStores = (serverUrl: string) => {
  let database: Promise<FreshDatabase> | null = null;
  const databaseUrl = async (): Promise<string> => (await (database ??= freshPostgresDatabase(serverUrl))).url;

  /** Runs one statement on the file's database, on a connection of its own. */
  const run = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: await databaseUrl() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };

  const open = async (options: Omit<PostgresReadModelStoreOptions, 'schema'> & { readonly schema?: string } = {}): Promise<PostgresReadModelFixture> => {
    const url = await databaseUrl();
    const schema = options.schema ?? `rm_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const store = await PostgresReadModelStore.connect(url, { ...options, schema, maxConnections: 4 });
    return {
      store,
      url,
      schema,
      dispose: async () => {
        await store.close();
        await run(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      },
    };
  };

  const dropDatabase = async (): Promise<void> => {
    if (database) await (await database).drop();
    database = null;
  };

  return { open, run, databaseUrl, dropDatabase };
};
