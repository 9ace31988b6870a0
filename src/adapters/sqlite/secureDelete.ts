import type { SqliteDatabase } from './openSqliteDatabase.js';

/**
 * Runs a write with SQLite's `secure_delete` on (on this connection, for this
 * write only): the bytes of what it removes or moves (a deleted row, a row a
 * page split moves) are overwritten in the file instead of left in free space.
 */
export const withSecureDelete = <T>(db: SqliteDatabase, write: () => T): T => {
  const before = db.pragma('secure_delete', { simple: true }) as number;
  if (before === 1) return write();
  db.pragma('secure_delete = ON');
  try {
    return write();
  } finally {
    db.pragma('secure_delete = OFF');
  }
};
