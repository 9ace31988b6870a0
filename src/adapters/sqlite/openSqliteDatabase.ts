import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;

const MIGRATIONS: readonly string[] = [
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
];

/**
 * Opens (and migrates) the embedded database: WAL, `synchronous=FULL` so an
 * acknowledged commit survives a crash or power loss, and a busy timeout so the
 * CLI and the server can write to the same file.
 */
export const openSqliteDatabase = (file: string): SqliteDatabase => {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('busy_timeout = 10000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  const migrate = db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    MIGRATIONS.slice(version).forEach((sql) => db.exec(sql));
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  });
  migrate.immediate();
  return db;
};
