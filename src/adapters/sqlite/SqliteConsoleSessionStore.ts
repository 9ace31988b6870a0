import type { Statement } from 'better-sqlite3';
import type { ConsoleSessionRecord, ConsoleSessionStore } from '../../application/ports/ConsoleSessionStore.js';
import { openConsoleDatabase } from './openConsoleDatabase.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';
import { whenLockFree } from './writeLock.js';

interface Row {
  session_id: string;
  company_id: string;
  admin_token_id: string | null;
  secret_hash: string;
  created_at: number;
  expires_at: number;
  idle_expires_at: number;
}

const recordOf = (row: Row): ConsoleSessionRecord => ({
  sessionId: row.session_id,
  companyId: row.company_id,
  adminTokenId: row.admin_token_id,
  secretHash: row.secret_hash,
  createdAt: new Date(row.created_at),
  expiresAt: new Date(row.expires_at),
  idleExpiresAt: new Date(row.idle_expires_at),
});

/**
 * Console sessions in `DATA_DIR/console.sqlite`, shared by every process on the
 * DATA_DIR. A resume is one `UPDATE … WHERE <still open> RETURNING`: the check and
 * the new idle end in one statement, under SQLite's write lock.
 */
export class SqliteConsoleSessionStore implements ConsoleSessionStore {
  private readonly statements: {
    readonly open: Statement<[string, string, string | null, string, number, number, number]>;
    readonly resume: Statement<[number, string, string, number, number], Row>;
    readonly end: Statement<[string, string]>;
    readonly endCompany: Statement<[string]>;
    readonly endAdminToken: Statement<[string]>;
    readonly prune: Statement<[number, number, number]>;
  };

  private constructor(private readonly db: SqliteDatabase) {
    this.statements = {
      open: db.prepare(
        `INSERT INTO console_sessions (session_id, company_id, admin_token_id, secret_hash, created_at, expires_at, idle_expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      resume: db.prepare(
        `UPDATE console_sessions SET idle_expires_at = min(?, expires_at)
         WHERE session_id = ? AND secret_hash = ? AND expires_at > ? AND idle_expires_at > ?
         RETURNING *`,
      ),
      end: db.prepare('DELETE FROM console_sessions WHERE session_id = ? AND secret_hash = ?'),
      endCompany: db.prepare('DELETE FROM console_sessions WHERE company_id = ?'),
      endAdminToken: db.prepare('DELETE FROM console_sessions WHERE admin_token_id = ?'),
      prune: db.prepare(
        `DELETE FROM console_sessions WHERE session_id IN (
           SELECT session_id FROM console_sessions WHERE idle_expires_at <= ? OR expires_at <= ? LIMIT ?)`,
      ),
    };
  }

  /** Opens (and migrates) the console's file with a connection of its own. */
  static open(file: string): SqliteConsoleSessionStore {
    return new SqliteConsoleSessionStore(openConsoleDatabase(file));
  }

  async open(session: ConsoleSessionRecord): Promise<void> {
    const { sessionId, companyId, adminTokenId, secretHash, createdAt, expiresAt, idleExpiresAt } = session;
    await whenLockFree(this.db, () =>
      this.statements.open.run(sessionId, companyId, adminTokenId, secretHash, createdAt.getTime(), expiresAt.getTime(), idleExpiresAt.getTime()),
    );
  }

  async resume(sessionId: string, secretHash: string, now: Date, idleMs: number): Promise<ConsoleSessionRecord | null> {
    const at = now.getTime();
    const row = await whenLockFree(this.db, () => this.statements.resume.get(at + idleMs, sessionId, secretHash, at, at));
    return row ? recordOf(row) : null;
  }

  async end(sessionId: string, secretHash: string): Promise<boolean> {
    return (await whenLockFree(this.db, () => this.statements.end.run(sessionId, secretHash))).changes === 1;
  }

  async endAll(which: { readonly companyId: string } | { readonly adminTokenId: string }): Promise<number> {
    const ended = await whenLockFree(this.db, () =>
      'companyId' in which ? this.statements.endCompany.run(which.companyId) : this.statements.endAdminToken.run(which.adminTokenId),
    );
    return ended.changes;
  }

  async prune(now: Date, limit: number): Promise<number> {
    return (await whenLockFree(this.db, () => this.statements.prune.run(now.getTime(), now.getTime(), limit))).changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
