import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteIdempotencyStore } from '../../src/adapters/sqlite/SqliteIdempotencyStore.js';
import { skipLine } from '../support/integration.js';
import { tempDir } from '../support/tempStore.js';
import { idempotencyStoreContract } from './idempotencyStore.contract.js';

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
