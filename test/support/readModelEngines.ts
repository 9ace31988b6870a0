import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import type { ReadModelStore } from '../../src/application/ports/ReadModelStore.js';
import { skipLine } from './integration.js';
import { postgresTestUrl } from './postgres.js';
import { postgresReadModelStores } from './postgresReadModels.js';
import { tempDir } from './tempStore.js';

/** A read-model store for one test, and what disposes of it. */
export interface ReadModelEngineFixture {
  readonly store: ReadModelStore;
  readonly dispose: () => Promise<void>;
}

/**
 * Registers `contract` on every read-model engine: memory, the embedded SQLite
 * file, MongoDB where MONGODB_URL is set and PostgreSQL where POSTGRES_TEST_URL is
 * (a line says which were skipped). `title` names the suite in those lines.
 */
export const onEveryReadModelEngine = (title: string, contract: (name: string, open: () => Promise<ReadModelEngineFixture>) => void): void => {
  contract('memory', async () => {
    const store = new MemoryReadModelStore();
    return { store, dispose: () => store.close() };
  });
  contract('SQLite (embedded)', async () => {
    const dir = tempDir('chronicle-read-models-');
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
    contract('MongoDB', async () => {
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
    skipLine(`${title}: MongoDB`, 'MONGODB_URL');
  }

  const postgresUrl = postgresTestUrl();
  if (postgresUrl) {
    const stores = postgresReadModelStores(postgresUrl);
    contract('PostgreSQL', () => stores.open());
    after(() => stores.dropDatabase());
  } else {
    skipLine(`${title}: PostgreSQL`, 'POSTGRES_TEST_URL');
  }
};
