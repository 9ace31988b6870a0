import type { LeaseRecord, LeaseStore } from '../../application/ports/LeaseStore.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';
import { whenLockFree } from './writeLock.js';

interface LeaseRow {
  readonly owner: string;
  readonly role: string;
  readonly pid: number;
  readonly host: string;
  readonly scope: string | null;
  readonly acquired_at: string;
  readonly renewed_at: string;
}

/**
 * Leases in the `leases` table of the read models' file: every process on the
 * DATA_DIR sees them. Each change is one conditional statement (SQLite runs it as
 * a write transaction of its own, under the file's write lock), so of two
 * processes claiming one lease as they read it, exactly one succeeds. A change
 * waits for the file's write lock with the event loop serving (writeLock.ts).
 */
export class SqliteLeaseStore implements LeaseStore {
  private readonly readStatement;
  private readonly insertStatement;
  private readonly replaceStatement;
  private readonly renewStatement;
  private readonly releaseStatement;

  constructor(private readonly db: SqliteDatabase) {
    this.readStatement = db.prepare<[string], LeaseRow>('SELECT owner, role, pid, host, scope, acquired_at, renewed_at FROM leases WHERE name = ?');
    this.insertStatement = db.prepare<[string, string, string, number, string, string | null, string, string]>(
      'INSERT INTO leases (name, owner, role, pid, host, scope, acquired_at, renewed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
    );
    this.replaceStatement = db.prepare<[string, string, number, string, string | null, string, string, string, string, string]>(
      'UPDATE leases SET owner = ?, role = ?, pid = ?, host = ?, scope = ?, acquired_at = ?, renewed_at = ? WHERE name = ? AND owner = ? AND renewed_at = ?',
    );
    this.renewStatement = db.prepare<[string, string, string]>('UPDATE leases SET renewed_at = ? WHERE name = ? AND owner = ?');
    this.releaseStatement = db.prepare<[string, string]>('DELETE FROM leases WHERE name = ? AND owner = ?');
  }

  async read(name: string): Promise<LeaseRecord | null> {
    const row = this.readStatement.get(name);
    return row
      ? { owner: row.owner, role: row.role, pid: row.pid, host: row.host, scope: row.scope, acquiredAt: row.acquired_at, renewedAt: row.renewed_at }
      : null;
  }

  async claim(name: string, record: LeaseRecord, replacing: LeaseRecord | null): Promise<boolean> {
    const { owner, role, pid, host, scope, acquiredAt, renewedAt } = record;
    const written = await whenLockFree(this.db, () =>
      replacing === null
        ? this.insertStatement.run(name, owner, role, pid, host, scope, acquiredAt, renewedAt)
        : this.replaceStatement.run(owner, role, pid, host, scope, acquiredAt, renewedAt, name, replacing.owner, replacing.renewedAt),
    );
    return written.changes === 1;
  }

  async renew(name: string, owner: string, at: string): Promise<boolean> {
    return (await whenLockFree(this.db, () => this.renewStatement.run(at, name, owner))).changes === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await whenLockFree(this.db, () => this.releaseStatement.run(name, owner));
  }
}
