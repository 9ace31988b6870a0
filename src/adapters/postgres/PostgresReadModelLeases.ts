import type pg from 'pg';
import type { LeaseRecord, LeaseStore } from '../../application/ports/LeaseStore.js';

interface LeaseRow {
  readonly owner: string;
  readonly role: string;
  readonly pid: number;
  readonly host: string;
  readonly scope: string | null;
  readonly acquired_at: string;
  readonly renewed_at: string;
}

const COLUMNS = 'owner, role, pid, host, scope, acquired_at, renewed_at';

/**
 * Leases in `leases` beside the read models: every process on the database, on
 * any host, sees them. Each change is one conditional statement, so of two
 * processes claiming one lease as they read it, exactly one succeeds. Each write
 * also records the database's own time (`renewed_by_database`, `now()`), the one
 * clock every host shares.
 */
export class PostgresReadModelLeases implements LeaseStore {
  constructor(
    private readonly pool: pg.Pool,
    /** The qualified `leases` table. */
    private readonly table: string,
  ) {}

  async read(name: string): Promise<LeaseRecord | null> {
    const { rows } = await this.pool.query<LeaseRow>(`SELECT ${COLUMNS} FROM ${this.table} WHERE name = $1`, [name]);
    const row = rows[0];
    return row
      ? { owner: row.owner, role: row.role, pid: row.pid, host: row.host, scope: row.scope, acquiredAt: row.acquired_at, renewedAt: row.renewed_at }
      : null;
  }

  async claim(name: string, record: LeaseRecord, replacing: LeaseRecord | null): Promise<boolean> {
    const { owner, role, pid, host, scope, acquiredAt, renewedAt } = record;
    const values = [name, owner, role, pid, host, scope, acquiredAt, renewedAt];
    const written =
      replacing === null
        ? await this.pool.query(
            `INSERT INTO ${this.table} (name, ${COLUMNS}, renewed_by_database) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now()) ON CONFLICT (name) DO NOTHING`,
            values,
          )
        : await this.pool.query(
            `UPDATE ${this.table} SET owner = $2, role = $3, pid = $4, host = $5, scope = $6, acquired_at = $7, renewed_at = $8, ` +
              'renewed_by_database = now() WHERE name = $1 AND owner = $9 AND renewed_at = $10',
            [...values, replacing.owner, replacing.renewedAt],
          );
    return written.rowCount === 1;
  }

  async renew(name: string, owner: string, at: string): Promise<boolean> {
    const renewed = await this.pool.query(`UPDATE ${this.table} SET renewed_at = $3, renewed_by_database = now() WHERE name = $1 AND owner = $2`, [
      name,
      owner,
      at,
    ]);
    return renewed.rowCount === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.table} WHERE name = $1 AND owner = $2`, [name, owner]);
  }
}
