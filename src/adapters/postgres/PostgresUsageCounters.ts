import type pg from 'pg';
import { mergeUsageRows, type UsageCounters, type UsageRow } from '../../application/ports/UsageCounters.js';
import { query } from './postgresPool.js';

interface Row {
  company_id: string;
  hour: Date;
  key_id: string;
  requests: string;
  limited: string;
  deliveries_ok: string;
  deliveries_failed: string;
}

/**
 * Usage counters in the `usage_counters` table, shared by every process on the
 * database. A batch is one statement: the rows as arrays, unnested, each added to
 * the stored counts (`ON CONFLICT DO UPDATE SET n = n + excluded.n`), so the
 * batches of several processes add up. Deliveries are stored under key id ''.
 * Rows are merged and sorted first, so two batches at once lock the rows they share in the
 * same order (no deadlock).
 */
export class PostgresUsageCounters implements UsageCounters {
  constructor(private readonly pool: pg.Pool) {}

  async add(rows: readonly UsageRow[]): Promise<void> {
    if (rows.length === 0) return;
    // One row per key: a statement cannot update one row twice.
    const sorted = mergeUsageRows(rows).sort(
      (a, b) => a.companyId.localeCompare(b.companyId) || a.hour.getTime() - b.hour.getTime() || (a.keyId ?? '').localeCompare(b.keyId ?? ''),
    );
    await query(
      this.pool,
      `INSERT INTO usage_counters (company_id, hour, key_id, requests, limited, deliveries_ok, deliveries_failed)
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[])
       ON CONFLICT (company_id, hour, key_id) DO UPDATE SET
         requests = usage_counters.requests + excluded.requests, limited = usage_counters.limited + excluded.limited,
         deliveries_ok = usage_counters.deliveries_ok + excluded.deliveries_ok,
         deliveries_failed = usage_counters.deliveries_failed + excluded.deliveries_failed`,
      [
        sorted.map((row) => row.companyId),
        sorted.map((row) => row.hour),
        sorted.map((row) => row.keyId ?? ''),
        sorted.map((row) => row.requests),
        sorted.map((row) => row.limited),
        sorted.map((row) => row.deliveriesOk),
        sorted.map((row) => row.deliveriesFailed),
      ],
    );
  }

  async read(companyId: string, from: Date, to: Date): Promise<readonly UsageRow[]> {
    const { rows } = await query<Row>(this.pool, 'SELECT * FROM usage_counters WHERE company_id = $1 AND hour >= $2 AND hour < $3', [
      companyId,
      from,
      to,
    ]);
    return rows.map((row) => ({
      companyId: row.company_id,
      hour: row.hour,
      keyId: row.key_id === '' ? null : row.key_id,
      requests: Number(row.requests),
      limited: Number(row.limited),
      deliveriesOk: Number(row.deliveries_ok),
      deliveriesFailed: Number(row.deliveries_failed),
    }));
  }

  async prune(before: Date): Promise<number> {
    return (await query(this.pool, 'DELETE FROM usage_counters WHERE hour < $1', [before])).rowCount ?? 0;
  }

  async forgetCompany(companyId: string): Promise<number> {
    return (await query(this.pool, 'DELETE FROM usage_counters WHERE company_id = $1', [companyId])).rowCount ?? 0;
  }

  async close(): Promise<void> {
    // The pool is shared; the event store ends it.
  }
}
