import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../src/adapters/sqlite/openSqliteDatabase.js';
import { SqliteWebhookOutbox } from '../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { PostgresWebhookOutbox } from '../../src/adapters/postgres/PostgresWebhookOutbox.js';
import { postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../support/postgresLog.js';
import { skipLine } from '../support/integration.js';
import { tempDir } from '../support/tempStore.js';
import { dispatcherFairnessContract } from './dispatcherFairness.contract.js';
import { dispatcherHoldContract } from './dispatcherHold.contract.js';

const sqliteOutbox = async () => {
  const dir = tempDir('chronicle-fairness-');
  const db = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
  const outbox = new SqliteWebhookOutbox(db);
  return {
    outbox,
    dispose: async () => {
      await outbox.close();
      db.close();
      dir.dispose();
    },
  };
};
dispatcherFairnessContract('SQLite (embedded)', sqliteOutbox);
dispatcherHoldContract('SQLite (embedded)', sqliteOutbox);

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  const mongoOutbox = async () => {
    const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
    const { MongoWebhookOutbox } = await import('../../src/adapters/mongodb/MongoWebhookOutbox.js');
    const store = await MongoReadModelStore.connect(mongoUrl, `chronicle_test_${randomUUID().slice(0, 8)}`);
    const outbox = await MongoWebhookOutbox.create(store.database);
    return {
      outbox,
      dispose: async () => {
        await store.dropDatabase();
        await store.close();
      },
    };
  };
  dispatcherFairnessContract('MongoDB', mongoOutbox);
  dispatcherHoldContract('MongoDB', mongoOutbox);
} else {
  skipLine('Webhook dispatcher fairness: MongoDB', 'MONGODB_URL');
}

if (postgresTestUrl()) {
  const database = databaseForThisFile();
  const postgresOutbox = async () => {
    // The dispatcher's own pool size in production is 10; its turns share it.
    const pool = await migratedLogPool((await database()).url, 10);
    await pool.query('TRUNCATE webhook_outbox, webhook_fan_out_subscriptions, webhook_fan_out_checkpoints, webhook_outbox_count_changes');
    return { outbox: new PostgresWebhookOutbox(pool), dispose: () => pool.end() };
  };
  dispatcherFairnessContract('PostgreSQL', postgresOutbox);
  dispatcherHoldContract('PostgreSQL', postgresOutbox);
} else {
  skipLine('Webhook dispatcher fairness: PostgreSQL', 'POSTGRES_TEST_URL');
}
