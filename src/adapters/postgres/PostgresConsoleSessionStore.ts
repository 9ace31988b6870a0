import type pg from 'pg';
import type { ConsoleSessionRecord, ConsoleSessionStore } from '../../application/ports/ConsoleSessionStore.js';
import { query } from './postgresPool.js';

interface Row {
  session_id: string;
  company_id: string;
  admin_token_id: string | null;
  secret_hash: string;
  created_at: Date;
  expires_at: Date;
  idle_expires_at: Date;
}

const recordOf = (row: Row): ConsoleSessionRecord => ({
  sessionId: row.session_id,
  companyId: row.company_id,
  adminTokenId: row.admin_token_id,
  secretHash: row.secret_hash,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  idleExpiresAt: row.idle_expires_at,
});

/**
 * Console sessions in the `console_sessions` table, shared by every process on
 * the database. A resume is one `UPDATE … WHERE <still open> RETURNING`, judged on
 * the request's time (the port's `now`), as by every adapter.
 */
export class PostgresConsoleSessionStore implements ConsoleSessionStore {
  constructor(private readonly pool: pg.Pool) {}

  async open(session: ConsoleSessionRecord): Promise<void> {
    await query(
      this.pool,
      `INSERT INTO console_sessions (session_id, company_id, admin_token_id, secret_hash, created_at, expires_at, idle_expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [session.sessionId, session.companyId, session.adminTokenId, session.secretHash, session.createdAt, session.expiresAt, session.idleExpiresAt],
    );
  }

  async resume(sessionId: string, secretHash: string, now: Date, idleMs: number): Promise<ConsoleSessionRecord | null> {
    const { rows } = await query<Row>(
      this.pool,
      `UPDATE console_sessions SET idle_expires_at = least($1, expires_at)
       WHERE session_id = $2 AND secret_hash = $3 AND expires_at > $4 AND idle_expires_at > $4
       RETURNING *`,
      [new Date(now.getTime() + idleMs), sessionId, secretHash, now],
    );
    return rows[0] ? recordOf(rows[0]) : null;
  }

  async end(sessionId: string, secretHash: string): Promise<boolean> {
    const deleted = await query(this.pool, 'DELETE FROM console_sessions WHERE session_id = $1 AND secret_hash = $2', [sessionId, secretHash]);
    return deleted.rowCount === 1;
  }

  async endAll(which: { readonly companyId: string } | { readonly adminTokenId: string }): Promise<number> {
    const ended =
      'companyId' in which
        ? await query(this.pool, 'DELETE FROM console_sessions WHERE company_id = $1', [which.companyId])
        : await query(this.pool, 'DELETE FROM console_sessions WHERE admin_token_id = $1', [which.adminTokenId]);
    return ended.rowCount ?? 0;
  }

  async prune(now: Date, limit: number): Promise<number> {
    const pruned = await query(
      this.pool,
      // The ends checked again on the row deleted: a resume may have moved the idle end since the subquery read it.
      `DELETE FROM console_sessions WHERE (idle_expires_at <= $1 OR expires_at <= $1) AND session_id IN (
         SELECT session_id FROM console_sessions WHERE idle_expires_at <= $1 OR expires_at <= $1 LIMIT $2)`,
      [now, limit],
    );
    return pruned.rowCount ?? 0;
  }

  async close(): Promise<void> {
    // The pool is shared; the event store ends it.
  }
}
