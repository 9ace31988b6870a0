import { openWalDatabase, type SqliteDatabase } from './openSqliteDatabase.js';

/**
 * The console's file in DATA_DIR (`console.sqlite`): its sessions and the usage
 * counters, one step per release that changed it. Times are Unix milliseconds.
 */
export const CONSOLE_FILE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE console_sessions (
     session_id      TEXT    PRIMARY KEY,
     company_id      TEXT    NOT NULL,
     secret_hash     TEXT    NOT NULL,
     created_at      INTEGER NOT NULL,
     expires_at      INTEGER NOT NULL,
     idle_expires_at INTEGER NOT NULL
   );
   CREATE INDEX console_sessions_end ON console_sessions (idle_expires_at);
   CREATE TABLE usage_counters (
     company_id        TEXT    NOT NULL,
     hour              INTEGER NOT NULL,
     key_id            TEXT    NOT NULL,
     requests          INTEGER NOT NULL DEFAULT 0,
     limited           INTEGER NOT NULL DEFAULT 0,
     deliveries_ok     INTEGER NOT NULL DEFAULT 0,
     deliveries_failed INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (company_id, hour, key_id)
   ) WITHOUT ROWID;
   CREATE INDEX usage_counters_hour ON usage_counters (hour);`,
  // Sessions ended all at once: a company's (the platform offboards it), an admin token's (it was revoked).
  `ALTER TABLE console_sessions ADD COLUMN admin_token_id TEXT;
   CREATE INDEX console_sessions_company ON console_sessions (company_id);
   CREATE INDEX console_sessions_admin_token ON console_sessions (admin_token_id) WHERE admin_token_id IS NOT NULL;`,
];

/**
 * Opens the console's file: shared by every process on the DATA_DIR (WAL, a busy
 * timeout). `synchronous=NORMAL`: a power cut may lose the last moments of a
 * session's activity or a few counts, never the log.
 */
export const openConsoleDatabase = (file: string): SqliteDatabase =>
  openWalDatabase(file, { synchronous: 'NORMAL', migrations: CONSOLE_FILE_MIGRATIONS });
