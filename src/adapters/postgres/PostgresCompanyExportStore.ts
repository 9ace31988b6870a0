import type pg from 'pg';
import type { CompanyExportChange, CompanyExportRecord, CompanyExportStore } from '../../application/ports/CompanyExportStore.js';
import { query, readQuery } from './postgresPool.js';

/** Chunks read per statement by `readChunks`. */
const READ_BATCH = 8;

/**
 * Company exports in the `company_exports` table and their archives in
 * `company_export_chunks` (bytea), so that every API process on the database, on
 * any host, serves them. Deleting an export deletes its chunks (a foreign key's
 * cascade); the dead rows' space is reclaimed by the server's vacuum.
 */
export class PostgresCompanyExportStore implements CompanyExportStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(record: CompanyExportRecord): Promise<void> {
    await query(this.pool, 'INSERT INTO company_exports (id, company_id, expires_at, record) VALUES ($1, $2, $3, $4)', [
      record.id,
      record.companyId,
      new Date(record.expiresAt),
      JSON.stringify(record),
    ]);
  }

  async get(companyId: string, exportId: string): Promise<CompanyExportRecord | null> {
    const { rows } = await readQuery<{ record: CompanyExportRecord }>(this.pool, 'SELECT record FROM company_exports WHERE id = $1 AND company_id = $2', [
      exportId,
      companyId,
    ]);
    return rows[0]?.record ?? null;
  }

  async update(companyId: string, exportId: string, change: CompanyExportChange): Promise<void> {
    await query(this.pool, 'UPDATE company_exports SET record = record || $3::jsonb WHERE id = $1 AND company_id = $2', [exportId, companyId, JSON.stringify(change)]);
  }

  async writeChunk(exportId: string, seq: number, bytes: Uint8Array): Promise<void> {
    await query(
      this.pool,
      `INSERT INTO company_export_chunks (export_id, seq, bytes) VALUES ($1, $2, $3)
       ON CONFLICT (export_id, seq) DO UPDATE SET bytes = excluded.bytes`,
      [exportId, seq, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
    );
  }

  async *readChunks(exportId: string): AsyncIterable<Uint8Array> {
    let after = -1;
    for (;;) {
      const { rows } = await readQuery<{ seq: number; bytes: Buffer }>(
        this.pool,
        'SELECT seq, bytes FROM company_export_chunks WHERE export_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
        [exportId, after, READ_BATCH],
      );
      for (const row of rows) yield row.bytes;
      if (rows.length < READ_BATCH) return;
      after = rows[rows.length - 1]!.seq;
    }
  }

  async deleteCompany(companyId: string): Promise<number> {
    const { rowCount } = await query(this.pool, 'DELETE FROM company_exports WHERE company_id = $1', [companyId]);
    return rowCount ?? 0;
  }

  async deleteExpired(now: Date): Promise<number> {
    const { rowCount } = await query(this.pool, 'DELETE FROM company_exports WHERE expires_at <= $1', [now]);
    return rowCount ?? 0;
  }

  /** The pool is the event store's, which closes it. */
  async close(): Promise<void> {}
}
