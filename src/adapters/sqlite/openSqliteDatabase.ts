import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { createPrivateFile, makePrivateFolder } from './privateFiles.js';

export type SqliteDatabase = Database.Database;

/** The log file's schema, one step per release that changed it (exported for the upgrade tests). */
export const LOG_FILE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE events (
     position    INTEGER PRIMARY KEY AUTOINCREMENT,
     id          TEXT    NOT NULL UNIQUE,
     stream      TEXT    NOT NULL,
     revision    INTEGER NOT NULL,
     type        TEXT    NOT NULL,
     data        TEXT    NOT NULL,
     metadata    TEXT    NOT NULL,
     recorded_at TEXT    NOT NULL,
     UNIQUE (stream, revision)
   );
   CREATE TABLE checkpoints (
     name     TEXT PRIMARY KEY,
     position TEXT NOT NULL
   );`,
  // The webhook outbox and the fan-out's view of the subscriptions (SqliteWebhookOutbox).
  // Positions are zero-padded to 40 digits and times are ISO 8601 UTC, so text order is their order.
  `CREATE TABLE webhook_fan_out_subscriptions (
     subscription_id TEXT PRIMARY KEY,
     company_id      TEXT NOT NULL,
     event           TEXT NOT NULL,
     target_url      TEXT NOT NULL,
     filters         TEXT,
     subscribed_at   TEXT NOT NULL,
     unsubscribed_at TEXT,
     stopped_at      TEXT
   );
   CREATE TABLE webhook_outbox (
     id              INTEGER PRIMARY KEY,
     subscription_id TEXT    NOT NULL,
     event_id        TEXT    NOT NULL,
     company_id      TEXT    NOT NULL,
     queue_key       TEXT    NOT NULL,
     position        TEXT    NOT NULL,
     ordinal         INTEGER NOT NULL,
     event_type      TEXT    NOT NULL,
     occurred_at     TEXT    NOT NULL,
     envelope        TEXT    NOT NULL,
     state           TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
     attempts        TEXT    NOT NULL DEFAULT '[]',
     round_attempts  INTEGER NOT NULL DEFAULT 0,
     next_attempt_at TEXT,
     completed_at    TEXT,
     failure_reason  TEXT,
     created_at      TEXT    NOT NULL,
     UNIQUE (subscription_id, event_id)
   );
   CREATE INDEX webhook_outbox_by_queue ON webhook_outbox (subscription_id, queue_key);
   CREATE INDEX webhook_outbox_pending ON webhook_outbox (subscription_id, queue_key) WHERE state = 'pending';`,
  // Webhook signing secrets (SqliteWebhookSecretStore): never in events, read models or logs.
  `CREATE TABLE webhook_secrets (
     subscription_id TEXT PRIMARY KEY,
     secret          TEXT NOT NULL
   );`,
  // Outbox retention and metrics: rows per state kept by triggers in the writing transaction
  // (metrics read three rows instead of grouping the table), and an index of the final rows
  // by completion time for pruning (WEBHOOK_LOG_RETENTION_DAYS).
  `CREATE TABLE webhook_outbox_counts (
     state TEXT PRIMARY KEY CHECK (state IN ('pending', 'delivered', 'failed')),
     total INTEGER NOT NULL
   );
   INSERT INTO webhook_outbox_counts (state, total)
     SELECT s.state, (SELECT COUNT(*) FROM webhook_outbox o WHERE o.state = s.state)
     FROM (SELECT 'pending' AS state UNION ALL SELECT 'delivered' UNION ALL SELECT 'failed') s;
   CREATE TRIGGER webhook_outbox_counts_insert AFTER INSERT ON webhook_outbox BEGIN
     UPDATE webhook_outbox_counts SET total = total + 1 WHERE state = NEW.state;
   END;
   CREATE TRIGGER webhook_outbox_counts_delete AFTER DELETE ON webhook_outbox BEGIN
     UPDATE webhook_outbox_counts SET total = total - 1 WHERE state = OLD.state;
   END;
   CREATE TRIGGER webhook_outbox_counts_update AFTER UPDATE OF state ON webhook_outbox
   WHEN OLD.state <> NEW.state BEGIN
     UPDATE webhook_outbox_counts SET total = total - 1 WHERE state = OLD.state;
     UPDATE webhook_outbox_counts SET total = total + 1 WHERE state = NEW.state;
   END;
   CREATE INDEX webhook_outbox_completed ON webhook_outbox (completed_at) WHERE state <> 'pending';`,
  // The outbox's unique key led by the event id: a webhook event's rows (one per matching
  // subscription) sit side by side in it, so a fan-out batch writes a few of its pages, not
  // one page for each row (webhook event ids are UUIDv5, random: keyed by subscription
  // first, every row landed on a page of its own). SQLite cannot change a table's
  // constraint in place: the table is rebuilt (its rows copied, ids kept), then its indexes
  // (the unique key now an index of its own, built by sorting: faster than filling it row by
  // row) and the counters' triggers made again; the counters stay as they were (the copy is
  // not counted: the new table has no triggers yet, and dropping a table fires none).
  `CREATE TABLE webhook_outbox_rebuilt (
     id              INTEGER PRIMARY KEY,
     subscription_id TEXT    NOT NULL,
     event_id        TEXT    NOT NULL,
     company_id      TEXT    NOT NULL,
     queue_key       TEXT    NOT NULL,
     position        TEXT    NOT NULL,
     ordinal         INTEGER NOT NULL,
     event_type      TEXT    NOT NULL,
     occurred_at     TEXT    NOT NULL,
     envelope        TEXT    NOT NULL,
     state           TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
     attempts        TEXT    NOT NULL DEFAULT '[]',
     round_attempts  INTEGER NOT NULL DEFAULT 0,
     next_attempt_at TEXT,
     completed_at    TEXT,
     failure_reason  TEXT,
     created_at      TEXT    NOT NULL
   );
   INSERT INTO webhook_outbox_rebuilt SELECT id, subscription_id, event_id, company_id, queue_key, position, ordinal,
     event_type, occurred_at, envelope, state, attempts, round_attempts, next_attempt_at, completed_at, failure_reason,
     created_at FROM webhook_outbox ORDER BY id;
   DROP TABLE webhook_outbox;
   ALTER TABLE webhook_outbox_rebuilt RENAME TO webhook_outbox;
   CREATE UNIQUE INDEX webhook_outbox_event ON webhook_outbox (event_id, subscription_id);
   CREATE INDEX webhook_outbox_by_queue ON webhook_outbox (subscription_id, queue_key);
   CREATE INDEX webhook_outbox_pending ON webhook_outbox (subscription_id, queue_key) WHERE state = 'pending';
   CREATE INDEX webhook_outbox_completed ON webhook_outbox (completed_at) WHERE state <> 'pending';
   CREATE TRIGGER webhook_outbox_counts_insert AFTER INSERT ON webhook_outbox BEGIN
     UPDATE webhook_outbox_counts SET total = total + 1 WHERE state = NEW.state;
   END;
   CREATE TRIGGER webhook_outbox_counts_delete AFTER DELETE ON webhook_outbox BEGIN
     UPDATE webhook_outbox_counts SET total = total - 1 WHERE state = OLD.state;
   END;
   CREATE TRIGGER webhook_outbox_counts_update AFTER UPDATE OF state ON webhook_outbox
   WHEN OLD.state <> NEW.state BEGIN
     UPDATE webhook_outbox_counts SET total = total - 1 WHERE state = OLD.state;
     UPDATE webhook_outbox_counts SET total = total + 1 WHERE state = NEW.state;
   END;`,
  // Fair, cheap picking of due work: each subscription keeps when its queue is next due
  // (its head's next attempt, or the end of a hold; NULL while it has nothing to send, or
  // is disabled or ended), so the dispatcher reads the due subscriptions through one index
  // instead of looking for every queue's head among the pending rows. Beside it, how its
  // receiver is doing (paused or disabled after failing, since when, how often held). Every
  // existing row is kept; the due times of the queues pending now are set from their heads.
  `ALTER TABLE webhook_fan_out_subscriptions ADD COLUMN delivery_status TEXT NOT NULL DEFAULT 'active'
     CHECK (delivery_status IN ('active', 'paused', 'disabled'));
   ALTER TABLE webhook_fan_out_subscriptions ADD COLUMN logged_status TEXT NOT NULL DEFAULT 'active'
     CHECK (logged_status IN ('active', 'paused', 'disabled'));
   ALTER TABLE webhook_fan_out_subscriptions ADD COLUMN failing_since TEXT;
   ALTER TABLE webhook_fan_out_subscriptions ADD COLUMN pauses INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE webhook_fan_out_subscriptions ADD COLUMN hold_until TEXT;
   ALTER TABLE webhook_fan_out_subscriptions ADD COLUMN health_version INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE webhook_fan_out_subscriptions ADD COLUMN due_at TEXT;
   UPDATE webhook_fan_out_subscriptions AS s SET due_at = (
       SELECT o.next_attempt_at FROM webhook_outbox o
       WHERE o.subscription_id = s.subscription_id AND o.state = 'pending' ORDER BY o.queue_key LIMIT 1)
     WHERE s.unsubscribed_at IS NULL AND s.stopped_at IS NULL;
   CREATE INDEX webhook_fan_out_due ON webhook_fan_out_subscriptions (due_at) WHERE due_at IS NOT NULL;`,
  // The pending rows an insert adds are counted by the insert itself, once per fan-out batch
  // or enqueue (SqliteWebhookOutbox.insertAll), instead of by a trigger fired for every row:
  // the trigger more than doubled the CPU of a fan-out's inserts (45 → 20 µs a row). The
  // counts stay exact; the other triggers (a row's state changing, a row pruned) stay.
  `DROP TRIGGER webhook_outbox_counts_insert;`,
  // The data keys of the subjects whose personal fields are kept encrypted (SqliteSubjectKeyStore):
  // a key per subject, or, once the subject was erased, no key and the time it was erased
  // (ISO 8601 UTC), never both. Without rowid: a subject's row is found by its subject at once.
  `CREATE TABLE subject_keys (
     subject   TEXT PRIMARY KEY,
     key       TEXT,
     erased_at TEXT,
     CHECK ((key IS NULL) = (erased_at IS NOT NULL))
   ) WITHOUT ROWID;`,
  // The log's in-place rewrites (SqliteEventStore.renameStreams, rewriteEventData), each by
  // name: how far it went (the position of the last event it looked at), how many it changed,
  // and when it was done. A start finds one done in one read; one cut short resumes.
  `CREATE TABLE log_rewrites (
     name     TEXT PRIMARY KEY,
     position TEXT,
     changed  INTEGER NOT NULL DEFAULT 0,
     done_at  TEXT
   ) WITHOUT ROWID;`,
  // What each delivery attempt sent and what came back (its request's headers, its response's
  // headers and first 64 KiB of body), beside the outbox rather than in its rows: a row that
  // grew by a response with every attempt would move between pages as it grew, and a page
  // SQLite rebuilds keeps old copies of its rows (secure_delete overwrites what is deleted, not
  // what a page's rebuild leaves behind). Rows here are appended at the end of the table and
  // never grown (an erasure rewrites one in place, shorter); they go with their outbox row.
  `CREATE TABLE webhook_attempt_details (
     id        INTEGER PRIMARY KEY AUTOINCREMENT,
     outbox_id INTEGER NOT NULL,
     at        TEXT    NOT NULL,
     detail    TEXT    NOT NULL
   );
   CREATE INDEX webhook_attempt_details_by_row ON webhook_attempt_details (outbox_id, at);
   CREATE TRIGGER webhook_attempt_details_with_row AFTER DELETE ON webhook_outbox BEGIN
     DELETE FROM webhook_attempt_details WHERE outbox_id = OLD.id;
   END;`,
  // Each delivery's body beside its outbox row, keyed by the row's id, rather than in the row.
  // An outbox row changes size with every attempt (its list of attempts grows, its state and
  // times change), and a row that no longer fits its page makes SQLite rebalance the page with
  // its neighbours. The rebuilt page gets its cells written anew, and the bytes where they lay
  // before are left in the page's unused middle, which secure_delete never overwrites (it
  // overwrites what a delete or a rewrite frees, not what a rebuild leaves). So a body copied
  // there stayed in the file after its person's erasure rewrote the row (the byte scan of
  // erasureLeavesNoBytes found it, decision 206). A body here is written once, at the end of
  // the table (its id is the new row's, the largest), rewritten only by an erasure, and
  // deleted with its row. Dropping the column rewrites every row without its body, in place.
  `CREATE TABLE webhook_envelopes (
     id       INTEGER PRIMARY KEY,
     envelope TEXT NOT NULL
   );
   INSERT INTO webhook_envelopes (id, envelope) SELECT id, envelope FROM webhook_outbox ORDER BY id;
   ALTER TABLE webhook_outbox DROP COLUMN envelope;
   CREATE TRIGGER webhook_envelopes_with_row AFTER DELETE ON webhook_outbox BEGIN
     DELETE FROM webhook_envelopes WHERE id = OLD.id;
   END;`,
];

/**
 * Opens one of the embedded mode's SQLite files, shared by the processes on a
 * DATA_DIR: its folder made (0700) and the file (0600) if new, WAL (readers never wait for the writer), a 10 s busy
 * timeout (writers take turns), the given `synchronous` level, `secure_delete`, then `configure`
 * (pragmas, functions), and the migrations not run yet, in one write transaction
 * (`user_version` counts those run; none when all have run).
 */
export const openWalDatabase = (
  file: string,
  options: {
    readonly synchronous: 'FULL' | 'NORMAL';
    readonly migrations: readonly string[];
    readonly configure?: (db: SqliteDatabase) => void;
  },
): SqliteDatabase => {
  if (file !== ':memory:') {
    // Private to the server's user whatever the umask: the folder 0700, the file (and so
    // its -wal and -shm, which SQLite gives the file's mode) 0600.
    makePrivateFolder(dirname(file));
    createPrivateFile(file);
  }
  const db = new Database(file);
  db.pragma('busy_timeout = 10000');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous}`);
  // What a write removes or moves (a deleted or rewritten row, a row a page split moves) is
  // overwritten in the file, not left in free space: a person's erased values leave the bytes
  // on disk with the rows that held them (docs/platform/erasing-a-person.md).
  db.pragma('secure_delete = ON');
  options.configure?.(db);
  const migrate = db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    options.migrations.slice(version).forEach((sql) => db.exec(sql));
    db.pragma(`user_version = ${options.migrations.length}`);
  });
  // Only a file with migrations to run takes the write lock (another connection may hold it for a while).
  if ((db.pragma('user_version', { simple: true }) as number) < options.migrations.length) migrate.immediate();
  return db;
};

/** The log connection's page cache, in KiB (SQLite's default: 2,000). */
export const LOG_PAGE_CACHE_KIB = 16_384;

/** Pages of the log's WAL after which a commit checkpoints it (SQLite's default: 1,000). */
export const LOG_WAL_AUTOCHECKPOINT_PAGES = 10_000;

/**
 * Opens (and migrates) the embedded log's database: `synchronous=FULL` so an
 * acknowledged commit survives a crash or power loss; the CLI and the server
 * write to the same file.
 */
export const openSqliteDatabase = (file: string): SqliteDatabase =>
  openWalDatabase(file, {
    synchronous: 'FULL',
    migrations: LOG_FILE_MIGRATIONS,
    configure: (db) => {
      // Checkpoint the WAL every 40 MB instead of 4 MB. A checkpoint copies each page once
      // however often it was rewritten since the last: the webhook outbox rewrites the same
      // few pages (its queues' index pages, the counters, the rows being delivered) every few
      // milliseconds (docs/benchmarks/bench-webhooks.md).
      db.pragma(`wal_autocheckpoint = ${LOG_WAL_AUTOCHECKPOINT_PAGES}`);
      // 16 MiB of pages instead of SQLite's 2 MiB: the outbox's working set (the rows of the
      // queues being delivered, their indexes' pages) stays in memory instead of being read
      // from the file again at each attempt's UPDATE (docs/benchmarks/bench-webhooks.md).
      db.pragma(`cache_size = -${LOG_PAGE_CACHE_KIB}`);
    },
  });

/**
 * Copies the write-ahead log into the file and empties it (`wal_checkpoint(TRUNCATE)`):
 * what a rewrite replaced leaves the WAL too. True when it was emptied; false when a
 * reader of another connection still needed an older snapshot after the busy timeout.
 */
export const truncateWal = (db: SqliteDatabase): boolean => {
  const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number; checkpointed: number }>;
  return result !== undefined && result.busy === 0;
};
