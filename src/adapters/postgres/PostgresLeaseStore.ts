import type pg from 'pg';
import type { LeaseRecord, LeaseStore } from '../../application/ports/LeaseStore.js';
import { query } from './postgresPool.js';

interface LeaseRow {
  owner: string;
  role: string;
  pid: number;
  host: string;
  scope: string | null;
  acquired_at: string;
  renewed_at: string;
}

const COLUMNS = 'owner, role, pid, host, scope, acquired_at, renewed_at';

/**
 * Leases in a table shared by every process on the database (the log's `leases`,
 * which production uses; a read-model store opened on its own keeps one in its
 * schema, of the same layout), each changed by one conditional statement (an
 * insert that a held name refuses, or an update whose filter holds what the caller
 * read), so of two processes claiming a lease as they read it, exactly one succeeds.
 *
 * The record is kept as the holder wrote it (the port's contract); beside it,
 * `renewed_by_database` takes the database's own `now()` at every claim and
 * renewal: the time on one clock that every host shares, so that how long a lease
 * has gone unrenewed can be judged without comparing two machines' clocks (see
 * `silentForMs`).
 */
export class PostgresLeaseStore implements LeaseStore {
  constructor(
    private readonly pool: pg.Pool,
    /** The table, qualified and quoted as SQL names it (the log's `leases` by default). */
    private readonly table = 'leases',
  ) {}

  async read(name: string): Promise<LeaseRecord | null> {
    const { rows } = await query<LeaseRow>(
      this.pool,
      `SELECT ${COLUMNS} FROM ${this.table} WHERE name = $1`,
      [name],
    );
    const row = rows[0];
    return row
      ? { owner: row.owner, role: row.role, pid: row.pid, host: row.host, scope: row.scope, acquiredAt: row.acquired_at, renewedAt: row.renewed_at }
      : null;
  }

  async claim(name: string, record: LeaseRecord, replacing: LeaseRecord | null): Promise<boolean> {
    const { owner, role, pid, host, scope, acquiredAt, renewedAt } = record;
    const written =
      replacing === null
        ? await query(
            this.pool,
            `INSERT INTO ${this.table} (name, ${COLUMNS}, renewed_by_database)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now()) ON CONFLICT (name) DO NOTHING`,
            [name, owner, role, pid, host, scope, acquiredAt, renewedAt],
          )
        : await query(
            this.pool,
            `UPDATE ${this.table} SET owner = $2, role = $3, pid = $4, host = $5, scope = $6, acquired_at = $7, renewed_at = $8,
               renewed_by_database = now()
             WHERE name = $1 AND owner = $9 AND renewed_at = $10`,
            [name, owner, role, pid, host, scope, acquiredAt, renewedAt, replacing.owner, replacing.renewedAt],
          );
    return written.rowCount === 1;
  }

  async renew(name: string, owner: string, at: string): Promise<boolean> {
    const renewed = await query(this.pool, `UPDATE ${this.table} SET renewed_at = $3, renewed_by_database = now() WHERE name = $1 AND owner = $2`, [
      name,
      owner,
      at,
    ]);
    return renewed.rowCount === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await query(this.pool, `DELETE FROM ${this.table} WHERE name = $1 AND owner = $2`, [name, owner]);
  }

  /**
   * How long the lease has gone without a claim or renewal, measured on the
   * database's clock alone (null when nobody holds it): what a store that judges
   * staleness itself compares with the stale interval.
   */
  async silentForMs(name: string): Promise<number | null> {
    const { rows } = await query<{ silent_ms: string }>(
      this.pool,
      `SELECT floor(extract(epoch FROM now() - renewed_by_database) * 1000)::bigint AS silent_ms FROM ${this.table} WHERE name = $1`,
      [name],
    );
    return rows[0] ? Number(rows[0].silent_ms) : null;
  }
}
