import { expect } from 'chai';
import { join } from 'node:path';
import {
  LOG_FILE_MIGRATIONS,
  openSqliteDatabase,
  openWalDatabase,
  type SqliteDatabase,
} from '../../../src/adapters/sqlite/openSqliteDatabase.js';
import { SqliteWebhookOutbox } from '../../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { prepareOutboxStatements } from '../../../src/adapters/sqlite/webhookOutboxSql.js';
import { HEALTHY } from '../../../src/application/ports/WebhookOutbox.js';
import { tempDir } from '../../support/tempStore.js';

/** How the embedded outbox finds due queues: through the subscriptions' due times, never the rows. */
describe('SQLite webhook outbox: picking due queues', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('chronicle-outbox-due-')));
  afterEach(() => dir.dispose());
  const file = () => join(dir.path, 'chronicle.sqlite');

  /** SQLite's plan of one of the adapter's own statements (its text as prepared there). */
  const planOf = (db: SqliteDatabase, source: string, params: Record<string, unknown>): string =>
    (db.prepare(`EXPLAIN QUERY PLAN ${source}`).all(params) as Array<{ detail: string }>).map((r) => r.detail).join('\n');

  it('reads the due queues through the index of due times, without touching the outbox rows', () => {
    const db = openSqliteDatabase(file());
    try {
      const s = prepareOutboxStatements(db);
      const due = planOf(db, s.due.source, { now: '2026-01-01T00:00:00.000Z', queues: '["a"]', companies: '["c"]', limit: 64 });
      expect(due).to.match(/SEARCH webhook_fan_out_subscriptions USING INDEX webhook_fan_out_due \(due_at<\?\)/);
      expect(due).not.to.match(/webhook_outbox\b/);
      expect(due).not.to.match(/SCAN webhook_fan_out_subscriptions/);
      expect(due).not.to.match(/TEMP B-TREE/);
      const next = planOf(db, s.nextDue.source, { now: '2026-01-01T00:00:00.000Z' });
      expect(next).to.match(/SEARCH webhook_fan_out_subscriptions USING (COVERING )?INDEX webhook_fan_out_due \(due_at>\?\)/);
    } finally {
      db.close();
    }
  });

  it('settles a queue with one probe of the index of pending rows: its head, not its rows', () => {
    const db = openSqliteDatabase(file());
    try {
      const s = prepareOutboxStatements(db);
      const settle = planOf(db, s.settle.source, { subscriptionId: 's' });
      expect(settle).to.match(/SEARCH s USING INDEX sqlite_autoindex_webhook_fan_out_subscriptions_1 \(subscription_id=\?\)/);
      expect(settle).to.match(/SEARCH o USING INDEX webhook_outbox_pending \(subscription_id=\?\)/);
      expect(settle).not.to.match(/SCAN/);
      expect(settle).not.to.match(/TEMP B-TREE/);
      const fill = planOf(db, s.fillDue.source, { subscriptionId: 's', now: '2026-01-01T00:00:00.000Z' });
      expect(fill).not.to.match(/SCAN|webhook_outbox\b/);
    } finally {
      db.close();
    }
  });

  it('with thousands of rows pending for a stalled receiver, lists the healthy queue and reads no row', async () => {
    const db = openSqliteDatabase(file());
    const outbox = new SqliteWebhookOutbox(db);
    try {
      const subscription = (id: string, companyId: string) => ({
        subscriptionId: id,
        companyId,
        event: 'contact.created',
        targetUrl: `https://receiver.example/${id}`,
        filters: null,
        subscribedAt: '1',
        unsubscribedAt: null,
      });
      const row = (sub: string, n: number) => ({
        subscriptionId: sub,
        companyId: sub === 'stalled' ? 'b' : 'a',
        eventId: `${sub}-${n}`,
        eventType: 'contact.created',
        position: String(n + 2),
        ordinal: 0,
        occurredAt: '2026-01-01T00:00:00.000Z',
        envelope: '{}',
      });
      const stalledRows = Array.from({ length: 5000 }, (_, n) => row('stalled', n));
      await outbox.commitFanOut(
        'fan-out',
        { position: '5001', subscriptions: [subscription('stalled', 'b'), subscription('healthy', 'a')], deliveries: stalledRows },
        new Date('2026-01-01T00:00:00.000Z'),
      );
      // The stalled receiver's head waits for its retry; a row for the healthy one arrives.
      const attempt = { at: '2026-01-01T00:00:01.000Z', statusCode: null, error: 'timeout', latencyMs: 30_000 };
      await outbox.recordAttempt('stalled', 'stalled-0', attempt, { state: 'pending', nextAttemptAt: new Date('2026-01-01T01:00:00.000Z') });
      await outbox.settleQueue('stalled');
      await outbox.commitFanOut('fan-out', { position: '5002', subscriptions: [], deliveries: [row('healthy', 6000)] }, new Date('2026-01-01T00:00:02.000Z'));

      // Every read the adapter makes of the rows goes through a statement of its own: none is run for this.
      const readsOfRows: string[] = [];
      const spied = outbox as unknown as { s: Record<string, { all: (...a: unknown[]) => unknown; get: (...a: unknown[]) => unknown }> };
      for (const name of ['head', 'pending', 'get', 'list', 'count']) {
        const statement = spied.s[name]!;
        const [all, get] = [statement.all.bind(statement), statement.get.bind(statement)];
        spied.s[name] = { all: (...a) => (readsOfRows.push(name), all(...a)), get: (...a) => (readsOfRows.push(name), get(...a)) };
      }
      const { due, nextDueAt } = await outbox.dueQueues(new Date('2026-01-01T00:00:03.000Z'), 64);
      expect(due).to.deep.equal([{ subscriptionId: 'healthy', companyId: 'a', targetUrl: 'https://receiver.example/healthy', health: HEALTHY }]);
      expect(nextDueAt?.toISOString()).to.equal('2026-01-01T01:00:00.000Z');
      expect(readsOfRows).to.deep.equal([]);
    } finally {
      await outbox.close();
      db.close();
    }
  });

  it('upgrades a file written before the due times (migration 6): subscriptions and rows kept, each pending queue due from its head', async () => {
    const old = openWalDatabase(file(), { synchronous: 'FULL', migrations: LOG_FILE_MIGRATIONS.slice(0, 5) });
    const addSubscription = old.prepare(
      `INSERT INTO webhook_fan_out_subscriptions (subscription_id, company_id, event, target_url, filters, subscribed_at, unsubscribed_at, stopped_at)
       VALUES (?, 'c', 'contact.created', 'https://receiver.example/', NULL, ?, ?, NULL)`,
    );
    addSubscription.run('waiting', '1'.padStart(40, '0'), null);
    addSubscription.run('idle', '1'.padStart(40, '0'), null);
    addSubscription.run('ended', '1'.padStart(40, '0'), '9'.padStart(40, '0'));
    const addRow = old.prepare(
      `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, queue_key, position, ordinal, event_type,
         occurred_at, envelope, state, next_attempt_at, completed_at, created_at)
       VALUES (?, ?, 'c', ?, ?, 0, 'contact.created', '2026-01-01T00:00:00.000Z', '{}', ?, ?, ?, '2026-01-01T00:00:00.000Z')`,
    );
    const key = (n: number) => `${String(n).padStart(40, '0')}.000000`;
    addRow.run('waiting', 'w-2', key(2), '2', 'pending', '2026-01-01T00:05:00.000Z', null);
    addRow.run('waiting', 'w-3', key(3), '3', 'pending', '2026-01-01T00:00:00.000Z', null);
    addRow.run('waiting', 'w-1', key(1), '1', 'delivered', null, '2026-01-01T00:00:01.000Z');
    addRow.run('idle', 'i-1', key(1), '1', 'delivered', null, '2026-01-01T00:00:01.000Z');
    const subscriptionsBefore = old.prepare('SELECT subscription_id, company_id, subscribed_at, unsubscribed_at FROM webhook_fan_out_subscriptions ORDER BY 1').all();
    const rowsBefore = old.prepare('SELECT * FROM webhook_outbox ORDER BY id').all();
    old.close();

    const db = openSqliteDatabase(file());
    const outbox = new SqliteWebhookOutbox(db);
    try {
      expect(db.prepare('SELECT subscription_id, company_id, subscribed_at, unsubscribed_at FROM webhook_fan_out_subscriptions ORDER BY 1').all()).to.deep.equal(
        subscriptionsBefore,
      );
      // Each row with its body, kept beside it since (webhook_envelopes).
      expect(db.prepare('SELECT o.*, e.envelope FROM webhook_outbox o JOIN webhook_envelopes e ON e.id = o.id ORDER BY o.id').all()).to.deep.equal(rowsBefore);
      expect(db.prepare('SELECT subscription_id, due_at, delivery_status FROM webhook_fan_out_subscriptions ORDER BY 1').all()).to.deep.equal([
        { subscription_id: 'ended', due_at: null, delivery_status: 'active' },
        { subscription_id: 'idle', due_at: null, delivery_status: 'active' },
        { subscription_id: 'waiting', due_at: '2026-01-01T00:05:00.000Z', delivery_status: 'active' },
      ]);
      expect((await outbox.dueQueues(new Date('2026-01-01T00:01:00.000Z'), 10)).due).to.deep.equal([]);
      expect((await outbox.dueQueues(new Date('2026-01-01T00:05:00.000Z'), 10)).due.map((q) => q.subscriptionId)).to.deep.equal(['waiting']);
    } finally {
      await outbox.close();
      db.close();
    }
  });
});
