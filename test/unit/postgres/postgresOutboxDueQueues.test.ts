import { expect } from 'chai';
import type pg from 'pg';
import { LOG_SCHEMA, logMigrations } from '../../../src/adapters/postgres/logMigrations.js';
import { migratePostgres } from '../../../src/adapters/postgres/migratePostgres.js';
import { createPostgresPool } from '../../../src/adapters/postgres/postgresPool.js';
import { DUE_QUEUES_SQL, NEXT_DUE_SQL, PostgresWebhookOutbox } from '../../../src/adapters/postgres/PostgresWebhookOutbox.js';
import { HEALTHY, type FannedOutSubscription, type NewDelivery } from '../../../src/application/ports/WebhookOutbox.js';
import { skipLine } from '../../support/integration.js';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../../support/postgres.js';

const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);

const subscription = (id: string, companyId: string): FannedOutSubscription => ({
  subscriptionId: id,
  companyId,
  event: 'contact.created',
  targetUrl: `https://receiver.example/${id}`,
  filters: null,
  subscribedAt: '1',
  unsubscribedAt: null,
});

const row = (subscriptionId: string, n: number, companyId = 'a'): NewDelivery => ({
  subscriptionId,
  companyId,
  eventId: `${subscriptionId}-${n}`,
  eventType: 'contact.created',
  position: String(n + 2),
  ordinal: 0,
  occurredAt: T0.toISOString(),
  envelope: '{}',
});

/** The relations and nodes of a statement's plan (EXPLAIN, FORMAT JSON), with the adapter's own parameters. */
const planOf = async (pool: pg.Pool, sql: string, params: unknown[]): Promise<string> => {
  const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  return JSON.stringify(rows[0]!['QUERY PLAN']);
};

/** How the PostgreSQL outbox finds due queues: through the subscriptions' due times, never the rows. */
if (!postgresTestUrl()) {
  skipLine('PostgreSQL webhook outbox: picking due queues', 'POSTGRES_TEST_URL');
} else {
  describe('PostgreSQL webhook outbox: picking due queues', function () {
    this.timeout(60_000);
    let database: FreshDatabase;
    let pool: pg.Pool;
    beforeEach(async () => {
      database = await freshPostgresDatabase();
      pool = createPostgresPool(database.url, { max: 4, applicationName: 'chronicle-test' });
    });
    afterEach(async () => {
      await pool.end();
      await database.drop();
    });

    it('reads the due queues and the next due time through the index of due times, reading no outbox row', async () => {
      await migratePostgres(pool, LOG_SCHEMA, logMigrations);
      const outbox = new PostgresWebhookOutbox(pool);
      // 3,000 subscriptions, 40 of them due, one stalled receiver with 5,000 rows pending, as the planner's statistics say.
      const subs = Array.from({ length: 3000 }, (_, i) => subscription(`s-${i}`, `c-${i % 50}`));
      await outbox.commitFanOut('fan-out', { position: '2', subscriptions: [...subs, subscription('stalled', 'b')], deliveries: [] }, T0);
      await outbox.enqueue(subs.slice(0, 40).map((sub, i) => row(sub.subscriptionId, i)), at(1000));
      await outbox.enqueue(Array.from({ length: 5000 }, (_, n) => row('stalled', 100 + n, 'b')), at(1000));
      await pool.query('VACUUM ANALYZE webhook_fan_out_subscriptions');
      await pool.query('VACUUM ANALYZE webhook_outbox');

      const due = await planOf(pool, DUE_QUEUES_SQL, [at(2000), ['s-1'], ['c-3'], 64]);
      expect(due).to.contain('"Index Name":"webhook_fan_out_due"');
      expect(due).not.to.contain('webhook_outbox');
      expect(due).not.to.contain('Seq Scan');
      expect(due).not.to.contain('"Node Type":"Sort"');
      const next = await planOf(pool, NEXT_DUE_SQL, [at(2000)]);
      expect(next).to.contain('"Index Name":"webhook_fan_out_due"');
      expect(next).not.to.contain('webhook_outbox');
      expect(next).not.to.contain('Seq Scan');
    });

    it('with thousands of rows pending for a stalled receiver, lists the healthy queue and when the stalled one is due', async () => {
      await migratePostgres(pool, LOG_SCHEMA, logMigrations);
      const outbox = new PostgresWebhookOutbox(pool);
      const stalledRows = Array.from({ length: 5000 }, (_, n) => row('stalled', n, 'b'));
      await outbox.commitFanOut('fan-out', { position: '5001', subscriptions: [subscription('stalled', 'b'), subscription('healthy', 'a')], deliveries: stalledRows }, T0);
      const attempt = { at: at(1000).toISOString(), statusCode: null, error: 'timeout', latencyMs: 30_000 };
      await outbox.recordAttempt('stalled', 'stalled-0', attempt, { state: 'pending', nextAttemptAt: at(3_600_000) });
      await outbox.settleQueue('stalled');
      await outbox.commitFanOut('fan-out', { position: '6002', subscriptions: [], deliveries: [row('healthy', 6000)] }, at(2000));

      const { due, nextDueAt } = await outbox.dueQueues(at(3000), 64);
      expect(due).to.deep.equal([{ subscriptionId: 'healthy', companyId: 'a', targetUrl: 'https://receiver.example/healthy', health: HEALTHY }]);
      expect(nextDueAt?.toISOString()).to.equal(at(3_600_000).toISOString());
    });

    it('a settle waiting for a fan-out that is adding rows to the queue sees them, and leaves the queue due', async () => {
      await migratePostgres(pool, LOG_SCHEMA, logMigrations);
      const outbox = new PostgresWebhookOutbox(pool);
      await outbox.commitFanOut('fan-out', { position: '3', subscriptions: [subscription('s', 'a')], deliveries: [row('s', 1)] }, T0);
      // The head is delivered: the queue is still listed (due) until the dispatcher settles it.
      await outbox.recordAttempt('s', 's-1', { at: T0.toISOString(), statusCode: 200, error: null, latencyMs: 1 }, { state: 'delivered' });
      // A fan-out adds a row meanwhile, as commitFanOut does (rows, then the queues filled), and has not committed yet.
      const fanOut = await pool.connect();
      try {
        await fanOut.query('BEGIN');
        await fanOut.query(
          `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, position, ordinal, event_type, occurred_at, envelope, state, next_attempt_at, created_at)
           VALUES ('s', 's-2', 'a', 4, 0, 'contact.created', $1, '{}', 'pending', $1, $1)`,
          [at(10)],
        );
        await fanOut.query('SELECT webhook_queues_filled($1::text[], $2)', [['s'], at(10)]);
        let settled = false;
        const settle = outbox.settleQueue('s').then(() => (settled = true));
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(settled, 'the settle waits for the subscription the fan-out holds').to.equal(false);
        await fanOut.query('COMMIT');
        await settle;
      } finally {
        fanOut.release();
      }
      expect((await outbox.dueQueues(at(20), 10)).due.map((q) => q.subscriptionId)).to.deep.equal(['s']);
      expect((await outbox.head('s'))?.eventId).to.equal('s-2');
    });

    it('a fan-out whose rows a settle could not see makes the queue due once it has the subscription', async () => {
      await migratePostgres(pool, LOG_SCHEMA, logMigrations);
      const outbox = new PostgresWebhookOutbox(pool);
      await outbox.commitFanOut('fan-out', { position: '3', subscriptions: [subscription('s', 'a')], deliveries: [row('s', 1)] }, T0);
      await outbox.recordAttempt('s', 's-1', { at: T0.toISOString(), statusCode: 200, error: null, latencyMs: 1 }, { state: 'delivered' });
      const fanOut = await pool.connect();
      try {
        await fanOut.query('BEGIN');
        await fanOut.query(
          `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, position, ordinal, event_type, occurred_at, envelope, state, next_attempt_at, created_at)
           VALUES ('s', 's-2', 'a', 4, 0, 'contact.created', $1, '{}', 'pending', $1, $1)`,
          [at(10)],
        );
        // The dispatcher settles between the fan-out's rows and its fill: it sees no pending row.
        await outbox.settleQueue('s');
        expect((await outbox.dueQueues(at(20), 10)).due).to.deep.equal([]);
        await fanOut.query('SELECT webhook_queues_filled($1::text[], $2)', [['s'], at(10)]);
        await fanOut.query('COMMIT');
      } finally {
        fanOut.release();
      }
      expect((await outbox.dueQueues(at(20), 10)).due.map((q) => q.subscriptionId)).to.deep.equal(['s']);
    });

    it('upgrades a database of the release before: subscriptions and rows kept, each pending queue due from its head', async () => {
      const before = logMigrations.slice(0, 3);
      await migratePostgres(pool, LOG_SCHEMA, before);
      const addSubscription = (id: string, unsubscribedAt: string | null) =>
        pool.query(
          `INSERT INTO webhook_fan_out_subscriptions (subscription_id, company_id, event, target_url, filters, subscribed_at, unsubscribed_at)
           VALUES ($1, 'c', 'contact.created', 'https://receiver.example/', NULL, 1, $2)`,
          [id, unsubscribedAt],
        );
      await addSubscription('waiting', null);
      await addSubscription('idle', null);
      await addSubscription('ended', '9');
      const addRow = (sub: string, eventId: string, position: number, state: string, next: Date | null, completed: Date | null) =>
        pool.query(
          `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, position, ordinal, event_type, occurred_at, envelope, state,
             next_attempt_at, completed_at, created_at)
           VALUES ($1, $2, 'c', $3, 0, 'contact.created', $6, '{}', $4, $5, $7, $6)`,
          [sub, eventId, position, state, next, T0, completed],
        );
      await addRow('waiting', 'w-2', 2, 'pending', at(300_000), null);
      await addRow('waiting', 'w-3', 3, 'pending', T0, null);
      await addRow('waiting', 'w-1', 1, 'delivered', null, at(1000));
      await addRow('idle', 'i-1', 1, 'delivered', null, at(1000));
      await addRow('ended', 'e-1', 1, 'pending', T0, null);
      const subscriptionsBefore = (await pool.query('SELECT * FROM webhook_fan_out_subscriptions ORDER BY 1')).rows;
      const rowsBefore = (await pool.query('SELECT * FROM webhook_outbox ORDER BY 1, 2')).rows;

      expect(await migratePostgres(pool, LOG_SCHEMA, logMigrations.slice(0, 4))).to.deep.equal([4]);
      const outbox = new PostgresWebhookOutbox(pool);
      const subscriptionsAfter = (await pool.query('SELECT * FROM webhook_fan_out_subscriptions ORDER BY 1')).rows;
      expect(subscriptionsAfter.map(({ subscription_id, company_id, event, target_url, filters, subscribed_at, unsubscribed_at, stopped_at }) => ({
        subscription_id, company_id, event, target_url, filters, subscribed_at, unsubscribed_at, stopped_at,
      }))).to.deep.equal(subscriptionsBefore);
      expect((await pool.query('SELECT * FROM webhook_outbox ORDER BY 1, 2')).rows).to.deep.equal(rowsBefore);
      expect(subscriptionsAfter.map((s) => [s.subscription_id, s.due_at?.toISOString() ?? null, s.delivery_status, s.health_version])).to.deep.equal([
        ['ended', null, 'active', 0],
        ['idle', null, 'active', 0],
        ['waiting', at(300_000).toISOString(), 'active', 0],
      ]);
      expect((await outbox.dueQueues(at(60_000), 10)).due).to.deep.equal([]);
      expect((await outbox.dueQueues(at(300_000), 10)).due.map((q) => q.subscriptionId)).to.deep.equal(['waiting']);
      expect(await outbox.health('idle')).to.deep.equal(HEALTHY);
    });
  });
}
