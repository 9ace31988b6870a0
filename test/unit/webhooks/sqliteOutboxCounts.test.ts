import { expect } from 'chai';
import { join } from 'node:path';
import { LOG_FILE_MIGRATIONS, openSqliteDatabase, openWalDatabase } from '../../../src/adapters/sqlite/openSqliteDatabase.js';
import { SqliteWebhookOutbox } from '../../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { tempDir } from '../../support/tempStore.js';

/** The SQLite outbox's counters and retention index, beyond the port's contract. */
describe('SQLite webhook outbox: counts and retention index', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('chronicle-outbox-counts-')));
  afterEach(() => dir.dispose());

  const row = (n: number, state: string) => ({
    sub: 's1',
    event: `e${n}`,
    key: `${String(n).padStart(40, '0')}.000000`,
    position: String(n),
    state,
    completed: state === 'pending' ? null : '2026-01-01T00:00:00.000Z',
  });

  it('counts the rows a database already held when it is upgraded', () => {
    const file = join(dir.path, 'chronicle.sqlite');
    // A database as the release before the counters wrote it: without them, rows already in.
    const old = openWalDatabase(file, { synchronous: 'FULL', migrations: LOG_FILE_MIGRATIONS.slice(0, 3) });
    const insert = old.prepare(
      `INSERT INTO webhook_outbox (subscription_id, event_id, company_id, queue_key, position, ordinal, event_type,
         occurred_at, envelope, state, completed_at, created_at)
       VALUES (@sub, @event, 'c', @key, @position, 0, 'contact.created', '2026-01-01T00:00:00.000Z', '{}', @state, @completed,
         '2026-01-01T00:00:00.000Z')`,
    );
    [row(1, 'pending'), row(2, 'delivered'), row(3, 'delivered'), row(4, 'failed')].forEach((r) => insert.run(r));
    old.close();

    const db = openSqliteDatabase(file);
    try {
      const counts = Object.fromEntries(
        db.prepare('SELECT state, total FROM webhook_outbox_counts').all().map((r) => [(r as { state: string }).state, (r as { total: number }).total]),
      );
      expect(counts).to.deep.equal({ pending: 1, delivered: 2, failed: 1 });
    } finally {
      db.close();
    }
  });

  it('answers depth from the counters (three rows), not by grouping the outbox', async () => {
    const db = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
    try {
      const outbox = new SqliteWebhookOutbox(db);
      // The counters are what is read: a figure set on them is what comes back.
      db.prepare("UPDATE webhook_outbox_counts SET total = 123456 WHERE state = 'delivered'").run();
      expect(await outbox.depthByState()).to.deep.equal({ pending: 0, delivered: 123456, failed: 0 });
    } finally {
      db.close();
    }
  });

  it('prunes through the index of final rows by completion time', () => {
    const db = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
    try {
      // The adapter's pruning statement, as written in SqliteWebhookOutbox.
      const plan = db
        .prepare(
          `EXPLAIN QUERY PLAN DELETE FROM webhook_outbox WHERE id IN (
             SELECT id FROM webhook_outbox WHERE state <> 'pending' AND completed_at < ? ORDER BY completed_at LIMIT ?)`,
        )
        .all('2026-01-01T00:00:00.000Z', 10)
        .map((r) => (r as { detail: string }).detail)
        .join('\n');
      expect(plan).to.match(/USING INDEX webhook_outbox_completed/);
      expect(plan).not.to.match(/SCAN webhook_outbox(?! USING)/);
    } finally {
      db.close();
    }
  });
});
