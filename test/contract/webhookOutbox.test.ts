import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../src/adapters/sqlite/openSqliteDatabase.js';
import { SqliteWebhookOutbox } from '../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { skipLine } from '../support/integration.js';
import { tempDir } from '../support/tempStore.js';
import { webhookOutboxContract } from './webhookOutbox.contract.js';
import { PostgresEventStore } from '../../src/adapters/postgres/PostgresEventStore.js';
import { LogDoesNotHoldError, PostgresWebhookOutbox } from '../../src/adapters/postgres/PostgresWebhookOutbox.js';
import { anEvent } from '../support/events.js';
import { postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../support/postgresLog.js';

webhookOutboxContract('SQLite (embedded)', async () => {
  const dir = tempDir('chronicle-outbox-');
  const db = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
  return {
    outbox: new SqliteWebhookOutbox(db),
    dispose: async () => {
      db.close();
      dir.dispose();
    },
  };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  webhookOutboxContract('MongoDB', async () => {
    // A database of its own per test (the read models' one, as in production), dropped afterwards.
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
  });
  describe('MongoWebhookOutbox: picking due queues', () => {
    it('reads the due queues through the subscriptions’ due index, whatever the rows pending', async () => {
      const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
      const { MongoWebhookOutbox, DUE_ORDER, WEBHOOK_FAN_OUT_SUBSCRIPTIONS_COLLECTION, dueQueuesFilter } = await import(
        '../../src/adapters/mongodb/MongoWebhookOutbox.js'
      );
      const store = await MongoReadModelStore.connect(mongoUrl, `chronicle_test_${randomUUID().slice(0, 8)}`);
      try {
        await MongoWebhookOutbox.create(store.database);
        const filter = dueQueuesFilter(new Date().toISOString(), { queues: new Set(['a']), companies: new Set(['c']) });
        const plan = JSON.stringify(
          await store.database.collection<{ _id: string }>(WEBHOOK_FAN_OUT_SUBSCRIPTIONS_COLLECTION).find(filter).sort(DUE_ORDER).limit(64).explain('queryPlanner'),
        );
        expect(plan).to.contain('"indexName":"due"');
        expect(plan).not.to.contain('COLLSCAN');
        expect(plan).not.to.contain('"stage":"SORT"');
      } finally {
        await store.dropDatabase();
        await store.close();
      }
    });
  });
} else {
  skipLine('WebhookOutbox contract: MongoDB', 'MONGODB_URL');
}

if (postgresTestUrl()) {
  const database = databaseForThisFile();
  // The contract starts each test on an empty outbox: one database, emptied for each (quicker than one database each).
  webhookOutboxContract('PostgreSQL', async () => {
    const pool = await migratedLogPool((await database()).url);
    await pool.query('TRUNCATE webhook_outbox, webhook_fan_out_subscriptions, webhook_fan_out_checkpoints, webhook_outbox_count_changes');
    return { outbox: new PostgresWebhookOutbox(pool), dispose: () => pool.end() };
  });

  describe('PostgresWebhookOutbox: several processes on one outbox', () => {
    const attempt = { at: new Date(0).toISOString(), statusCode: 200, error: null, latencyMs: 1 };
    const delivery = (subscriptionId: string, position: number) => ({
      subscriptionId,
      companyId: 'co',
      eventId: randomUUID(),
      eventType: 'deal.won',
      position: String(position),
      ordinal: 0,
      occurredAt: new Date(0).toISOString(),
      envelope: '{}',
    });

    it('keep the counts by state exact while they write at once, as a count of the rows finds them', async () => {
      const url = (await database()).url;
      const pools = [await migratedLogPool(url), await migratedLogPool(url)];
      const [a, b] = pools.map((pool) => new PostgresWebhookOutbox(pool)) as [PostgresWebhookOutbox, PostgresWebhookOutbox];
      try {
        const before = await a.depthByState();
        const work = [a, b].map(async (outbox, w) => {
          const subscriptionId = `sub-${randomUUID()}`;
          for (let round = 0; round < 10; round++) {
            const rows = Array.from({ length: 5 }, (_, i) => delivery(subscriptionId, round * 5 + i + 1));
            await outbox.commitFanOut(`fan-out-${w}`, { position: String(round * 5 + 5), subscriptions: [], deliveries: rows }, new Date(0));
            await Promise.all([
              outbox.recordAttempt(subscriptionId, rows[0]!.eventId, attempt, { state: 'delivered' }),
              outbox.recordAttempt(subscriptionId, rows[1]!.eventId, attempt, { state: 'failed', reason: 'retries_exhausted' }),
              (w === 0 ? b : a).depthByState(),
            ]);
          }
        });
        await Promise.all(work);
        const after = await b.depthByState();
        const { rows } = await pools[0]!.query<{ state: string; total: string }>('SELECT state, count(*) AS total FROM webhook_outbox GROUP BY state');
        const counted = Object.fromEntries(rows.map((row) => [row.state, Number(row.total)]));
        expect({ pending: after.pending - before.pending, delivered: after.delivered - before.delivered, failed: after.failed - before.failed }).to.deep.equal({
          pending: 60,
          delivered: 20,
          failed: 20,
        });
        expect(after).to.deep.equal({ pending: counted.pending ?? 0, delivered: counted.delivered ?? 0, failed: counted.failed ?? 0 });
      } finally {
        await Promise.all(pools.map((pool) => pool.end()));
      }
    });

    it('leave a row that a redelivery put back in the queue while the retention was deciding', async () => {
      const pool = await migratedLogPool((await database()).url);
      const outbox = new PostgresWebhookOutbox(pool);
      const subscriptionId = `sub-${randomUUID()}`;
      const row = delivery(subscriptionId, 1);
      const other = await pool.connect();
      try {
        await outbox.commitFanOut('fan-out-retention', { position: '1', subscriptions: [], deliveries: [row] }, new Date(0));
        await outbox.recordAttempt(subscriptionId, row.eventId, attempt, { state: 'delivered' });
        await other.query('BEGIN');
        await other.query("UPDATE webhook_outbox SET state = 'pending', completed_at = NULL WHERE subscription_id = $1", [subscriptionId]);
        // Every final row of the day (other tests' too) is pruned, this one not: it is pending once the prune gets to it.
        const pruned = outbox.pruneCompleted(new Date(86_400_000), 100_000);
        await new Promise((resolve) => setTimeout(resolve, 100));
        await other.query('COMMIT');
        await pruned;
        expect(await outbox.get(subscriptionId, row.eventId)).to.include({ state: 'pending' });
      } finally {
        other.release();
        await pool.end();
      }
    });

    it('beside the log, keep the id of the checkpoint’s event, and store a batch only when the log holds its last event at its position (nothing of a batch read from a primary that failed over)', async () => {
      const pool = await migratedLogPool((await database()).url);
      const outbox = new PostgresWebhookOutbox(pool, { besideLog: true });
      const store = new PostgresEventStore(pool);
      const subscriptionId = `sub-${randomUUID()}`;
      try {
        const stream = `contact-${randomUUID()}`;
        const { position } = await store.append(stream, [anEvent('Created')], 'no_stream');
        const [held] = await store.readStream(stream);
        await outbox.commitFanOut('fan-out-beside', { position, eventId: held!.id, subscriptions: [], deliveries: [delivery(subscriptionId, Number(position))] }, new Date(0));
        expect(await outbox.loadFanOut('fan-out-beside')).to.deep.include({ position, eventId: held!.id });
        // The batch's event at the next position was lost with the old primary: the log holds none there, or another.
        const next = String(BigInt(position) + 1n);
        const lost = delivery(subscriptionId, Number(next));
        const refused = await outbox
          .commitFanOut('fan-out-beside', { position: next, eventId: lost.eventId, subscriptions: [], deliveries: [lost] }, new Date(0))
          .catch((error: unknown) => error);
        expect(refused).to.be.instanceOf(LogDoesNotHoldError);
        expect(await outbox.get(subscriptionId, lost.eventId)).to.equal(null);
        expect(await outbox.loadFanOut('fan-out-beside')).to.deep.include({ position, eventId: held!.id });
      } finally {
        await store.close();
        await pool.end();
      }
    });

    it('store a fan-out batch whole or not at all', async () => {
      const pool = await migratedLogPool((await database()).url);
      const outbox = new PostgresWebhookOutbox(pool);
      const subscriptionId = `sub-${randomUUID()}`;
      try {
        const refused = await outbox
          .commitFanOut('fan-out-whole', { position: 'not-a-position', subscriptions: [], deliveries: [delivery(subscriptionId, 1)] }, new Date(0))
          .catch((error: unknown) => error);
        expect(refused).to.be.instanceOf(Error);
        expect(await outbox.pendingRows(subscriptionId, 10)).to.deep.equal([]);
        expect((await outbox.loadFanOut('fan-out-whole')).position).to.equal(null);
      } finally {
        await pool.end();
      }
    });
  });
} else {
  skipLine('WebhookOutbox contract: PostgreSQL', 'POSTGRES_TEST_URL');
}

describe('SqliteWebhookOutbox: attempts and fan-out batches committed without an fsync of their own', () => {
  const attempt = { at: new Date(0).toISOString(), statusCode: 200, error: null, latencyMs: 1 };
  type Spied = {
    transactions: { recordBatch: { immediate: (...args: unknown[]) => unknown }; commit: { immediate: (...args: unknown[]) => unknown } };
  };

  const withOutbox = async (run: (db: ReturnType<typeof openSqliteDatabase>, outbox: SqliteWebhookOutbox, spied: Spied) => Promise<void>) => {
    const dir = tempDir('chronicle-outbox-');
    const db = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
    const outbox = new SqliteWebhookOutbox(db);
    try {
      await run(db, outbox, outbox as unknown as Spied);
    } finally {
      await outbox.close();
      db.close();
      dir.dispose();
    }
  };
  const level = (db: ReturnType<typeof openSqliteDatabase>) => db.pragma('synchronous', { simple: true });
  /** The connection's level each time the outbox runs transaction `name`, from now on. */
  const levelsDuring = (db: ReturnType<typeof openSqliteDatabase>, spied: Spied, name: keyof Spied['transactions']): unknown[] => {
    const during: unknown[] = [];
    const transaction = spied.transactions[name];
    spied.transactions[name] = {
      immediate: (...args: unknown[]) => {
        during.push(level(db));
        return transaction.immediate(...args);
      },
    };
    return during;
  };

  it('commits a batch of attempts at synchronous=NORMAL, and puts the log’s FULL back for what follows', async () => {
    await withOutbox(async (db, outbox, spied) => {
      expect(level(db)).to.equal(2);
      const during = levelsDuring(db, spied, 'recordBatch');
      const results = await Promise.all([
        outbox.recordAttempt('s-1', 'e-1', attempt, { state: 'delivered' }),
        outbox.recordAttempt('s-2', 'e-2', attempt, { state: 'delivered' }),
      ]);
      // One group commit (no such rows: nothing pending to record).
      expect(results).to.deep.equal([false, false]);
      expect(during).to.deep.equal([1]);
      expect(level(db)).to.equal(2);
    });
  });

  it('commits a fan-out batch at synchronous=NORMAL too (it is made again from the log), and puts FULL back', async () => {
    await withOutbox(async (db, outbox, spied) => {
      const during = levelsDuring(db, spied, 'commit');
      await outbox.commitFanOut('webhook-fan-out', { position: '5', deliveries: [], subscriptions: [] }, new Date(0));
      expect(during).to.deep.equal([1]);
      expect(level(db)).to.equal(2);
      expect((await outbox.loadFanOut('webhook-fan-out')).position).to.equal('5');
    });
  });

  it('puts FULL back when the batch’s transaction fails whole', async () => {
    await withOutbox(async (db, outbox, spied) => {
      spied.transactions.recordBatch = {
        immediate: () => {
          throw new Error('disk I/O error');
        },
      };
      const outcome = await outbox.recordAttempt('s-1', 'e-1', attempt, { state: 'delivered' }).then(
        () => 'recorded',
        (error: Error) => error.message,
      );
      expect(outcome).to.equal('disk I/O error');
      expect(level(db)).to.equal(2);
    });
  });
});

describe('SqliteWebhookOutbox: the log file’s write lock held by another process', () => {
  const attempt = { at: new Date(0).toISOString(), statusCode: 200, error: null, latencyMs: 1 };

  it('waits with the event loop serving, for a fan-out batch and for the attempts’ group commit alike', async () => {
    const dir = tempDir('chronicle-outbox-');
    const file = join(dir.path, 'chronicle.sqlite');
    const db = openSqliteDatabase(file);
    const other = openSqliteDatabase(file);
    const outbox = new SqliteWebhookOutbox(db);
    try {
      other.exec('BEGIN IMMEDIATE');
      const done: string[] = [];
      const fanOut = outbox.commitFanOut('webhook-fan-out', { position: '9', deliveries: [], subscriptions: [] }, new Date(0)).then(() => done.push('fan-out'));
      const recorded = outbox.recordAttempt('s-1', 'e-1', attempt, { state: 'delivered' }).then(() => done.push('attempt'));
      let timers = 0;
      for (let i = 0; i < 4; i++) await new Promise((resolve) => setTimeout(resolve, 5)).then(() => (timers += 1));
      expect(timers, 'the loop went on').to.equal(4);
      expect(done, 'nothing written while the lock is held').to.deep.equal([]);
      other.exec('COMMIT');
      await Promise.all([fanOut, recorded]);
      expect(done).to.have.members(['fan-out', 'attempt']);
      expect((await outbox.loadFanOut('webhook-fan-out')).position).to.equal('9');
      expect(db.pragma('busy_timeout', { simple: true })).to.equal(10_000);
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      await outbox.close();
      db.close();
      other.close();
      dir.dispose();
    }
  });
});
