import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteReadModelStore, type SqliteReadModelStoreOptions } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import { ThreadedReadModelStore } from '../../src/adapters/sqlite/ThreadedReadModelStore.js';
import { tempDir } from '../support/tempStore.js';
import { readModelStoreContract } from './readModelStore.contract.js';
import { readModelSearchContract } from './readModelSearch.contract.js';
import { skipLine } from '../support/integration.js';
import { postgresTestUrl } from '../support/postgres.js';
import { postgresReadModelStores } from '../support/postgresReadModels.js';

const memory = async () => {
  const store = new MemoryReadModelStore();
  return { store, dispose: () => store.close() };
};
readModelStoreContract('memory', memory);
readModelSearchContract('memory', memory, { specialCasing: true });

const sqlite =
  (options: SqliteReadModelStoreOptions = {}) =>
  async () => {
    const dir = tempDir('chronicle-read-models-');
    const store = SqliteReadModelStore.open(join(dir.path, 'read-models.sqlite'), options);
    return {
      store,
      dispose: async () => {
        await store.close();
        dir.dispose();
      },
    };
  };
readModelStoreContract('SQLite (embedded)', sqlite());
readModelSearchContract('SQLite (embedded)', sqlite(), { specialCasing: true });
// The API and the projections in one process: batches share a commit, read at once through the store.
readModelStoreContract('SQLite (embedded, batches sharing a commit)', sqlite({ shareCommitMs: 20 }));
// The API and the projections in one process, batches on a thread of their own (READ_MODEL_THREAD).
const threaded = async () => {
  const dir = tempDir('chronicle-read-models-');
  const file = join(dir.path, 'read-models.sqlite');
  const store = new ThreadedReadModelStore(SqliteReadModelStore.open(file), {
    file,
    entry: new URL('../support/readModelThreadTestMain.js', import.meta.url),
  });
  return {
    store,
    dispose: async () => {
      await store.close();
      dir.dispose();
    },
  };
};
readModelStoreContract('SQLite (embedded, batches on a thread)', threaded);
readModelSearchContract('SQLite (embedded, batches on a thread)', threaded, { specialCasing: true });

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  const mongo = async () => {
    // A database of its own per test, dropped afterwards.
    const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
    const store = await MongoReadModelStore.connect(mongoUrl, `chronicle_test_${randomUUID().slice(0, 8)}`);
    return {
      store,
      dispose: async () => {
        await store.dropDatabase();
        await store.close();
      },
    };
  };
  readModelStoreContract('MongoDB', mongo);
  // A regular expression's case folding differs from JavaScript's toLowerCase on a few letters (docs/contributors/decisions/0018-substring-search-per-engine.md).
  readModelSearchContract('MongoDB', mongo, { specialCasing: false });
} else {
  skipLine('ReadModelStore contract: MongoDB', 'MONGODB_URL');
}

const postgresUrl = postgresTestUrl();
if (postgresUrl) {
  // One database for the file, a schema of its own per store.
  const stores = postgresReadModelStores(postgresUrl);
  const postgres = () => stores.open();
  readModelStoreContract('PostgreSQL', postgres);
  readModelSearchContract('PostgreSQL', postgres, { specialCasing: true });
  after(() => stores.dropDatabase());
} else {
  skipLine('ReadModelStore contract: PostgreSQL', 'POSTGRES_TEST_URL');
}
