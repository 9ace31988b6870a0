import type { ClaimOutcome, LeaseClaim, LeaseHolder, LeaseRecord, LeaseStore } from '../../application/ports/LeaseStore.js';
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
  readonly silent_ms: number;
}

/** SQLite's time, as the ISO 8601 UTC text the table keeps (milliseconds). */
const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
/** How long ago, in ms of SQLite's time, the lease was last renewed. */
const SILENT_MS = `CAST(ROUND((julianday('now') - julianday(renewed_at)) * 86400000.0) AS INTEGER)`;

/**
 * Leases in the `leases` table of the read models' file: every process on the
 * DATA_DIR sees them. Each change is one statement (SQLite runs it as a write
 * transaction of its own, under the file's write lock), so of two processes
 * claiming one lease, exactly one succeeds. Time is SQLite's (`'now'`): the
 * processes sharing the file share the machine, hence its clock. A change waits
 * for the file's write lock with the event loop serving (writeLock.ts).
 */
export class SqliteLeaseStore implements LeaseStore {
  private readonly readStatement;
  private readonly claimStatement;
  private readonly renewStatement;
  private readonly releaseStatement;

  constructor(private readonly db: SqliteDatabase) {
    this.readStatement = db.prepare<[string], LeaseRow>(
      `SELECT owner, role, pid, host, scope, acquired_at, renewed_at, ${SILENT_MS} AS silent_ms FROM leases WHERE name = ?`,
    );
    // Free (no row), held by the owner known to be gone, or not renewed for the stale bound: taken in the one statement.
    this.claimStatement = db.prepare<[string, string, string, number, string, string | null, string | null, number]>(
      `INSERT INTO leases (name, owner, role, pid, host, scope, acquired_at, renewed_at) VALUES (?, ?, ?, ?, ?, ?, ${NOW}, ${NOW}) ` +
        'ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, role = excluded.role, pid = excluded.pid, host = excluded.host, ' +
        'scope = excluded.scope, acquired_at = excluded.acquired_at, renewed_at = excluded.renewed_at ' +
        `WHERE leases.owner IS ? OR (julianday('now') - julianday(leases.renewed_at)) * 86400000.0 >= ?`,
    );
    this.renewStatement = db.prepare<[string, string]>(`UPDATE leases SET renewed_at = ${NOW} WHERE name = ? AND owner = ?`);
    this.releaseStatement = db.prepare<[string, string]>('DELETE FROM leases WHERE name = ? AND owner = ?');
  }

  async read(name: string): Promise<LeaseRecord | null> {
    const row = this.readStatement.get(name);
    return row ? toRecord(row) : null;
  }

  async claim(name: string, holder: LeaseHolder, { staleAfterMs, replacing = null }: LeaseClaim): Promise<ClaimOutcome> {
    const { owner, role, pid, host, scope } = holder;
    const written = await whenLockFree(this.db, () => this.claimStatement.run(name, owner, role, pid, host, scope, replacing, staleAfterMs));
    const now = await this.read(name);
    return written.changes === 1 && now !== null && now.owner === owner ? { taken: true, lease: now } : { taken: false, holder: now };
  }

  async renew(name: string, owner: string): Promise<boolean> {
    return (await whenLockFree(this.db, () => this.renewStatement.run(name, owner))).changes === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await whenLockFree(this.db, () => this.releaseStatement.run(name, owner));
  }
}

const toRecord = (row: LeaseRow): LeaseRecord => ({
  owner: row.owner,
  role: row.role,
  pid: row.pid,
  host: row.host,
  scope: row.scope,
  acquiredAt: row.acquired_at,
  renewedAt: row.renewed_at,
  silentMs: Math.max(0, row.silent_ms),
});
