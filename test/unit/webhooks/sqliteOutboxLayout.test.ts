import { expect } from 'chai';
import { join } from 'node:path';
import {
  LOG_FILE_MIGRATIONS,
  LOG_PAGE_CACHE_KIB,
  LOG_WAL_AUTOCHECKPOINT_PAGES,
  openSqliteDatabase,
  openWalDatabase,
  type SqliteDatabase,
} from '../../../src/adapters/sqlite/openSqliteDatabase.js';
import { SqliteWebhookOutbox } from '../../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { tempDir } from '../../support/tempStore.js';

/** The embedded outbox's layout in the log's file, and the upgrade of a file the release before wrote. */
describe('SQLite webhook outbox: layout and upgrade', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('chronicle-outbox-layout-')));
  afterEach(() => dir.dispose());

  const file = () => join(dir.path, 'chronicle.sqlite');
  const INSERT_ROW = `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, queue_key, position, ordinal, event_type,
       occurred_at, envelope, state, attempts, completed_at, failure_reason, created_at)
     VALUES (@sub, @event, 'c', @key, @position, 0, 'contact.created', '2026-01-01T00:00:00.000Z', @envelope, @state,
       @attempts, @completed, @reason, '2026-01-01T00:00:00.000Z')`;
  const row = (n: number, sub: string, state: 'pending' | 'delivered' | 'failed') => ({
    sub,
    event: `event-${n}`,
    key: `${String(n).padStart(40, '0')}.000000`,
    position: String(n),
    envelope: JSON.stringify({ n }),
    state,
    attempts: state === 'pending' ? '[]' : JSON.stringify([{ at: '2026-01-01T00:00:01.000Z', statusCode: 200, error: null, latencyMs: 3 }]),
    completed: state === 'pending' ? null : '2026-01-01T00:00:01.000Z',
    reason: state === 'failed' ? 'retries_exhausted' : null,
  });
  const all = (db: SqliteDatabase) => db.prepare('SELECT * FROM webhook_outbox ORDER BY id').all();
  /** The rows of a file at the current version, each with its body (kept beside it, in webhook_envelopes). */
  const allWithBodies = (db: SqliteDatabase) => db.prepare('SELECT o.*, e.envelope FROM webhook_outbox o JOIN webhook_envelopes e ON e.id = o.id ORDER BY o.id').all();
  const counts = (db: SqliteDatabase) =>
    Object.fromEntries(
      (db.prepare('SELECT state, total FROM webhook_outbox_counts').all() as Array<{ state: string; total: number }>).map((r) => [
        r.state,
        r.total,
      ]),
    );
  const uniqueKeyOf = (db: SqliteDatabase): string[] => {
    const unique = (db.prepare("PRAGMA index_list('webhook_outbox')").all() as Array<{ name: string; unique: number }>).find(
      (index) => index.unique === 1,
    );
    return (db.prepare(`PRAGMA index_info('${unique!.name}')`).all() as Array<{ name: string }>).map((c) => c.name);
  };

  it('keys the outbox by event id first, so one webhook event’s rows share its index pages', () => {
    const db = openSqliteDatabase(file());
    try {
      expect(uniqueKeyOf(db)).to.deep.equal(['event_id', 'subscription_id']);
      // The lookups by (subscription, event id) still go through it: recording an attempt, a redelivery.
      const plan = (db.prepare('EXPLAIN QUERY PLAN SELECT * FROM webhook_outbox WHERE subscription_id = ? AND event_id = ?').all('s', 'e') as Array<{
        detail: string;
      }>)
        .map((r) => r.detail)
        .join('\n');
      expect(plan).to.match(/USING INDEX webhook_outbox_event \(event_id=\? AND subscription_id=\?\)/);
    } finally {
      db.close();
    }
  });

  it('upgrades a file of an earlier release (outbox keyed by subscription): every row kept (ids too), the counters kept', async () => {
    // The file as the release before left it: its migrations only, rows in every state.
    const old = openWalDatabase(file(), { synchronous: 'FULL', migrations: LOG_FILE_MIGRATIONS.slice(0, 4) });
    const insert = old.prepare(INSERT_ROW);
    [row(1, 's1', 'delivered'), row(1, 's2', 'pending'), row(2, 's1', 'failed'), row(2, 's2', 'pending'), row(3, 's1', 'pending')].forEach(
      (r) => insert.run(r),
    );
    old.prepare("DELETE FROM webhook_outbox WHERE subscription_id = 's1' AND event_id = 'event-2'").run();
    insert.run(row(4, 's1', 'delivered'));
    const before = all(old);
    expect(uniqueKeyOf(old)).to.deep.equal(['subscription_id', 'event_id']);
    expect(counts(old)).to.deep.equal({ pending: 3, delivered: 2, failed: 0 });
    old.close();

    const db = openSqliteDatabase(file());
    try {
      expect(db.pragma('user_version', { simple: true })).to.equal(LOG_FILE_MIGRATIONS.length);
      expect(uniqueKeyOf(db)).to.deep.equal(['event_id', 'subscription_id']);
      expect(allWithBodies(db)).to.deep.equal(before);
      expect(counts(db)).to.deep.equal({ pending: 3, delivered: 2, failed: 0 });
      const indexes = (db.prepare("PRAGMA index_list('webhook_outbox')").all() as Array<{ name: string }>).map((i) => i.name).sort();
      expect(indexes).to.deep.equal([
        'webhook_outbox_by_queue',
        'webhook_outbox_completed',
        'webhook_outbox_event',
        'webhook_outbox_pending',
      ]);

      // Through the adapter: the queues, a duplicate left out, an attempt, a new row, all counted.
      const outbox = new SqliteWebhookOutbox(db);
      expect((await outbox.pendingRows('s2', 10)).map((d) => d.eventId)).to.deep.equal(['event-1', 'event-2']);
      const again = { subscriptionId: 's2', eventId: 'event-1', companyId: 'c', position: '1', ordinal: 0 };
      const fresh = { subscriptionId: 's2', eventId: 'event-5', companyId: 'c', position: '5', ordinal: 0 };
      const common = { eventType: 'contact.created', occurredAt: '2026-01-01T00:00:00.000Z', envelope: '{}' };
      expect(await outbox.enqueue([{ ...again, ...common }, { ...fresh, ...common }], new Date('2026-01-02T00:00:00.000Z'))).to.equal(1);
      const attempt = { at: '2026-01-02T00:00:01.000Z', statusCode: 200, error: null, latencyMs: 4 };
      expect(await outbox.recordAttempt('s2', 'event-1', attempt, { state: 'delivered' })).to.equal(true);
      expect(await outbox.depthByState()).to.deep.equal({ pending: 3, delivered: 3, failed: 0 });
      expect((await outbox.get('s2', 'event-1'))?.attempts).to.deep.equal([attempt]);
      await outbox.close();
    } finally {
      db.close();
    }
  });

  it('upgrades a file whose inserts a trigger counted: the trigger dropped, the counts kept and kept exact by the inserts', async () => {
    // The file as the release before left it (migrations 1–6), rows counted by its insert trigger.
    const old = openWalDatabase(file(), { synchronous: 'FULL', migrations: LOG_FILE_MIGRATIONS.slice(0, 6) });
    const triggers = (db: SqliteDatabase) =>
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'webhook_outbox' ORDER BY name").all() as Array<{
        name: string;
      }>).map((t) => t.name);
    expect(triggers(old)).to.include('webhook_outbox_counts_insert');
    const insert = old.prepare(INSERT_ROW);
    [row(1, 's1', 'pending'), row(2, 's1', 'delivered'), row(3, 's1', 'pending')].forEach((r) => insert.run(r));
    expect(counts(old)).to.deep.equal({ pending: 2, delivered: 1, failed: 0 });
    old.close();

    const db = openSqliteDatabase(file());
    try {
      expect(triggers(db)).to.deep.equal(['webhook_attempt_details_with_row', 'webhook_envelopes_with_row', 'webhook_outbox_counts_delete', 'webhook_outbox_counts_update']);
      expect(counts(db)).to.deep.equal({ pending: 2, delivered: 1, failed: 0 });
      const outbox = new SqliteWebhookOutbox(db);
      const common = { companyId: 'c', ordinal: 0, eventType: 'contact.created', occurredAt: '2026-01-01T00:00:00.000Z', envelope: '{}' };
      // Two new rows and one already stored: two counted, in the statement that inserts them.
      const rows = [
        { ...common, subscriptionId: 's1', eventId: 'event-3', position: '3' },
        { ...common, subscriptionId: 's1', eventId: 'event-4', position: '4' },
        { ...common, subscriptionId: 's2', eventId: 'event-4', position: '4' },
      ];
      expect(await outbox.enqueue(rows, new Date('2026-01-02T00:00:00.000Z'))).to.equal(2);
      expect(counts(db)).to.deep.equal({ pending: 4, delivered: 1, failed: 0 });
      await outbox.commitFanOut('webhook-fan-out', { position: '5', subscriptions: [], deliveries: [{ ...common, subscriptionId: 's2', eventId: 'event-5', position: '5' }] }, new Date('2026-01-02T00:00:00.000Z'));
      expect(counts(db)).to.deep.equal({ pending: 5, delivered: 1, failed: 0 });
      // What the counters say is what the table holds.
      const grouped = Object.fromEntries(
        (db.prepare('SELECT state, COUNT(*) AS n FROM webhook_outbox GROUP BY state').all() as Array<{ state: string; n: number }>).map((r) => [r.state, r.n]),
      );
      expect(grouped).to.deep.equal({ pending: 5, delivered: 1 });
      await outbox.close();
    } finally {
      db.close();
    }
  });

  it('checkpoints the log’s WAL every 10,000 pages, not every 1,000', () => {
    const db = openSqliteDatabase(file());
    try {
      expect(LOG_WAL_AUTOCHECKPOINT_PAGES).to.equal(10_000);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).to.equal(LOG_WAL_AUTOCHECKPOINT_PAGES);
    } finally {
      db.close();
    }
  });

  it('keeps 16 MiB of the log’s pages in memory on its connection, not SQLite’s 2 MiB', () => {
    const db = openSqliteDatabase(file());
    try {
      expect(LOG_PAGE_CACHE_KIB).to.equal(16_384);
      // A negative cache_size is a size in KiB.
      expect(db.pragma('cache_size', { simple: true })).to.equal(-LOG_PAGE_CACHE_KIB);
    } finally {
      db.close();
    }
  });
});

describe('SQLite webhook outbox: attempts’ requests and responses kept beside the rows', () => {
  it('keeps them apart from the outbox rows (which do not grow by them), and deletes them with their row', async () => {
    const dir = tempDir('chronicle-outbox-details-');
    const db = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
    const outbox = new SqliteWebhookOutbox(db);
    try {
      const delivery = { subscriptionId: 's', companyId: 'c', eventId: 'e', eventType: 'contact.created', position: '1', ordinal: 0, occurredAt: '2026-01-01T00:00:00.000Z', envelope: '{"n":1}' };
      await outbox.enqueue([delivery], new Date('2026-01-01T00:00:00.000Z'));
      const body = 'x'.repeat(20_000);
      const attempt = { at: '2026-01-01T00:00:01.000Z', statusCode: 200, error: null, latencyMs: 3, request: { url: 'http://r/', headers: {} }, response: { headers: {}, body, bodyTruncated: false } };
      expect(await outbox.recordAttempt('s', 'e', attempt, { state: 'delivered' }, '{"n":1}')).to.equal(true);
      const stored = db.prepare('SELECT length(attempts) AS size FROM webhook_outbox').get() as { size: number };
      expect(stored.size).to.be.below(200);
      expect((await outbox.get('s', 'e'))?.attempts).to.deep.equal([attempt]);
      expect(await outbox.pruneCompleted(new Date('2026-02-01T00:00:00.000Z'), 10)).to.equal(1);
      expect(db.prepare('SELECT count(*) AS n FROM webhook_attempt_details').get()).to.deep.equal({ n: 0 });
    } finally {
      await outbox.close();
      db.close();
      dir.dispose();
    }
  });
});

describe('SQLite webhook outbox: each body kept beside its row', () => {
  const columns = (db: SqliteDatabase, table: string) => (db.prepare(`PRAGMA table_info('${table}')`).all() as Array<{ name: string }>).map((c) => c.name);

  it('keeps the body in webhook_envelopes under the row’s id, reads it with the row, rewrites it on an erasure and deletes it with the row', async () => {
    const dir = tempDir('chronicle-outbox-bodies-');
    const db = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
    const outbox = new SqliteWebhookOutbox(db);
    try {
      expect(columns(db, 'webhook_outbox')).not.to.include('envelope');
      const common = { companyId: 'c', eventType: 'contact.created', position: '1', ordinal: 0, occurredAt: '2026-01-01T00:00:00.000Z' };
      const body = '{"data":{"id":"contact-1","name":"Ada"}}';
      await outbox.commitFanOut(
        'fan-out',
        { position: '1', subscriptions: [{ subscriptionId: 's', companyId: 'c', event: 'contact.created', targetUrl: 'https://r.example/', filters: null, subscribedAt: '0', unsubscribedAt: null }], deliveries: [{ ...common, subscriptionId: 's', eventId: 'e', envelope: body }] },
        new Date('2026-01-01T00:00:00.000Z'),
      );
      // Offered again: nothing added, neither row nor body.
      expect(await outbox.enqueue([{ ...common, subscriptionId: 's', eventId: 'e', envelope: body }], new Date('2026-01-01T00:00:00.000Z'))).to.equal(0);
      const { id } = db.prepare('SELECT id FROM webhook_outbox').get() as { id: number };
      expect(db.prepare('SELECT id, envelope FROM webhook_envelopes').all()).to.deep.equal([{ id, envelope: body }]);
      expect((await outbox.pendingRows('s', 10)).map((d) => d.envelope)).to.deep.equal([body]);
      const attempt = { at: '2026-01-01T00:00:01.000Z', statusCode: 200, error: null, latencyMs: 3, request: { url: 'https://r.example/', headers: {} }, response: { headers: { 'x-echo': 'Ada' }, body, bodyTruncated: false } };
      expect(await outbox.recordAttempt('s', 'e', attempt, { state: 'delivered' }, body)).to.equal(true);
      expect(await outbox.eraseMentions('c', 'contact-1', (text) => text.replace('"Ada"', 'null'))).to.equal(1);
      const erased = await outbox.get('s', 'e');
      expect(erased?.envelope).to.equal('{"data":{"id":"contact-1","name":null}}');
      expect(erased?.attempts[0]?.response).to.deep.equal({ headers: {}, body: '', bodyTruncated: false, erased: true });
      // The emptied response is rewritten where it was (same row), not deleted and added again.
      expect(db.prepare('SELECT id FROM webhook_attempt_details').all()).to.deep.equal([{ id: 1 }]);
      expect(await outbox.pruneCompleted(new Date('2026-02-01T00:00:00.000Z'), 10)).to.equal(1);
      expect(db.prepare('SELECT count(*) AS n FROM webhook_envelopes').get()).to.deep.equal({ n: 0 });
    } finally {
      await outbox.close();
      db.close();
      dir.dispose();
    }
  });

  it('upgrades a file whose rows held their bodies: each body moved beside its row under the same id, the column dropped', async () => {
    const dir = tempDir('chronicle-outbox-bodies-upgrade-');
    const file = join(dir.path, 'chronicle.sqlite');
    const old = openWalDatabase(file, { synchronous: 'FULL', migrations: LOG_FILE_MIGRATIONS.slice(0, -1) });
    const insert = old.prepare(
      `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, queue_key, position, ordinal, event_type, occurred_at, envelope, state, created_at)
       VALUES (?, ?, 'c', ?, ?, 0, 'contact.created', '2026-01-01T00:00:00.000Z', ?, 'pending', '2026-01-01T00:00:00.000Z')`,
    );
    for (const n of [1, 2, 3]) insert.run('s', `e-${n}`, `${String(n).padStart(40, '0')}.000000`, String(n), `{"n":${n}}`);
    old.prepare("DELETE FROM webhook_outbox WHERE event_id = 'e-2'").run();
    const before = old.prepare('SELECT * FROM webhook_outbox ORDER BY id').all();
    old.close();

    const db = openSqliteDatabase(file);
    const outbox = new SqliteWebhookOutbox(db);
    try {
      expect(columns(db, 'webhook_outbox')).not.to.include('envelope');
      expect(db.prepare('SELECT o.*, e.envelope FROM webhook_outbox o JOIN webhook_envelopes e ON e.id = o.id ORDER BY o.id').all()).to.deep.equal(before);
      expect(db.prepare('SELECT id, envelope FROM webhook_envelopes ORDER BY id').all()).to.deep.equal([
        { id: 1, envelope: '{"n":1}' },
        { id: 3, envelope: '{"n":3}' },
      ]);
      expect((await outbox.pendingRows('s', 10)).map((d) => [d.eventId, d.envelope])).to.deep.equal([
        ['e-1', '{"n":1}'],
        ['e-3', '{"n":3}'],
      ]);
    } finally {
      await outbox.close();
      db.close();
      dir.dispose();
    }
  });
});
