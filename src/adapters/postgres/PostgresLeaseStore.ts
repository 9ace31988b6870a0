import type pg from 'pg';
import type { ClaimOutcome, LeaseClaim, LeaseHolder, LeaseRecord, LeaseStore } from '../../application/ports/LeaseStore.js';
import { query } from './postgresPool.js';

interface LeaseRow {
  owner: string;
  role: string;
  pid: number;
  host: string;
  scope: string | null;
  acquired_at: string;
  renewed_at: string;
  silent_ms: string;
}

/** The database's time, as the ISO 8601 UTC text the table keeps (milliseconds). */
const NOW = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** How long ago, in ms of the database's time, the lease was last claimed or renewed. */
const SILENT_MS = 'floor(extract(epoch FROM now() - renewed_by_database) * 1000)::bigint';
const COLUMNS = `owner, role, pid, host, scope, acquired_at, renewed_at, ${SILENT_MS} AS silent_ms`;

/**
 * Leases in a `leases` table (the log's, or the read models' schema's), shared
 * by every process on the database, on any host. Each change is one statement;
 * time is the database's own (`now()`, the one clock every host shares): a claim
 * takes a lease that is free, held by the owner known to be gone, or not renewed
 * for the stale bound by that clock, in its one conditional upsert, so of two
 * processes claiming one lease exactly one succeeds.
 */
export class PostgresLeaseStore implements LeaseStore {
  constructor(
    private readonly pool: pg.Pool,
    /** The (qualified) table; `leases` of the log's schema by default. */
    private readonly table = 'leases',
  ) {}

  async read(name: string): Promise<LeaseRecord | null> {
    const { rows } = await query<LeaseRow>(this.pool, `SELECT ${COLUMNS} FROM ${this.table} WHERE name = $1`, [name]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async claim(name: string, holder: LeaseHolder, { staleAfterMs, replacing = null }: LeaseClaim): Promise<ClaimOutcome> {
    const { owner, role, pid, host, scope } = holder;
    const { rows } = await query<LeaseRow>(
      this.pool,
      `INSERT INTO ${this.table} AS lease (name, owner, role, pid, host, scope, acquired_at, renewed_at, renewed_by_database)
       VALUES ($1, $2, $3, $4, $5, $6, ${NOW}, ${NOW}, now())
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, role = excluded.role, pid = excluded.pid, host = excluded.host,
         scope = excluded.scope, acquired_at = excluded.acquired_at, renewed_at = excluded.renewed_at, renewed_by_database = now()
       WHERE lease.owner = $7 OR now() - lease.renewed_by_database >= $8 * interval '1 millisecond'
       RETURNING ${COLUMNS}`,
      [name, owner, role, pid, host, scope, replacing, staleAfterMs],
    );
    if (rows[0]) return { taken: true, lease: toRecord(rows[0]) };
    return { taken: false, holder: await this.read(name) };
  }

  async renew(name: string, owner: string): Promise<boolean> {
    const renewed = await query(
      this.pool,
      `UPDATE ${this.table} SET renewed_at = ${NOW}, renewed_by_database = now() WHERE name = $1 AND owner = $2`,
      [name, owner],
    );
    return renewed.rowCount === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await query(this.pool, `DELETE FROM ${this.table} WHERE name = $1 AND owner = $2`, [name, owner]);
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
  silentMs: Math.max(0, Number(row.silent_ms)),
});
