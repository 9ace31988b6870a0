import type { CompanyExportChange, CompanyExportRecord, CompanyExportStore } from '../../application/ports/CompanyExportStore.js';
import { openWalDatabase, type SqliteDatabase } from './openSqliteDatabase.js';

/** The exports' file in DATA_DIR (`exports.sqlite`), one step per release that changed it. Times are Unix milliseconds. */
export const EXPORTS_FILE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE company_exports (
     id         TEXT    PRIMARY KEY,
     company_id TEXT    NOT NULL,
     expires_at INTEGER NOT NULL,
     record     TEXT    NOT NULL
   );
   CREATE INDEX company_exports_company ON company_exports (company_id);
   CREATE INDEX company_exports_expiry ON company_exports (expires_at);
   CREATE TABLE company_export_chunks (
     export_id TEXT    NOT NULL,
     seq       INTEGER NOT NULL,
     bytes     BLOB    NOT NULL,
     PRIMARY KEY (export_id, seq)
   );`,
];

/** Chunks read per statement by `readChunks`. */
const READ_BATCH = 8;

/**
 * Company exports in `DATA_DIR/exports.sqlite`, shared by every process on the
 * DATA_DIR. The archives hold people's values: the file has `secure_delete` on
 * (a deleted chunk's bytes are overwritten in it), and a deletion empties the
 * write-ahead log after its commit, so that no copy of the deleted pages is left
 * in `-wal` either (when no reader holds it).
 */
export class SqliteCompanyExportStore implements CompanyExportStore {
  private constructor(private readonly db: SqliteDatabase) {}

  static open(file: string): SqliteCompanyExportStore {
    return new SqliteCompanyExportStore(openWalDatabase(file, { synchronous: 'NORMAL', migrations: EXPORTS_FILE_MIGRATIONS }));
  }

  async create(record: CompanyExportRecord): Promise<void> {
    this.db
      .prepare('INSERT INTO company_exports (id, company_id, expires_at, record) VALUES (?, ?, ?, ?)')
      .run(record.id, record.companyId, Date.parse(record.expiresAt), JSON.stringify(record));
  }

  async get(companyId: string, exportId: string): Promise<CompanyExportRecord | null> {
    const row = this.db.prepare<[string, string], { record: string }>('SELECT record FROM company_exports WHERE id = ? AND company_id = ?').get(exportId, companyId);
    return row ? (JSON.parse(row.record) as CompanyExportRecord) : null;
  }

  async update(companyId: string, exportId: string, change: CompanyExportChange): Promise<void> {
    this.db.transaction(() => {
      const row = this.db.prepare<[string, string], { record: string }>('SELECT record FROM company_exports WHERE id = ? AND company_id = ?').get(exportId, companyId);
      if (!row) return;
      const record = { ...(JSON.parse(row.record) as CompanyExportRecord), ...change };
      this.db.prepare('UPDATE company_exports SET record = ? WHERE id = ?').run(JSON.stringify(record), exportId);
    }).immediate();
  }

  async writeChunk(exportId: string, seq: number, bytes: Uint8Array): Promise<void> {
    this.db.prepare('INSERT OR REPLACE INTO company_export_chunks (export_id, seq, bytes) VALUES (?, ?, ?)').run(exportId, seq, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  async *readChunks(exportId: string): AsyncIterable<Uint8Array> {
    const page = this.db.prepare<[string, number, number], { seq: number; bytes: Buffer }>(
      'SELECT seq, bytes FROM company_export_chunks WHERE export_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    );
    let after = -1;
    for (;;) {
      const rows = page.all(exportId, after, READ_BATCH);
      for (const row of rows) yield row.bytes;
      if (rows.length < READ_BATCH) return;
      after = rows[rows.length - 1]!.seq;
    }
  }

  async deleteCompany(companyId: string): Promise<number> {
    return this.deleteIds(this.db.prepare<[string], { id: string }>('SELECT id FROM company_exports WHERE company_id = ?').all(companyId));
  }

  async deleteExpired(now: Date): Promise<number> {
    return this.deleteIds(this.db.prepare<[number], { id: string }>('SELECT id FROM company_exports WHERE expires_at <= ?').all(now.getTime()));
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private deleteIds(rows: readonly { id: string }[]): number {
    if (rows.length === 0) return 0;
    this.db.transaction(() => {
      for (const { id } of rows) {
        this.db.prepare('DELETE FROM company_export_chunks WHERE export_id = ?').run(id);
        this.db.prepare('DELETE FROM company_exports WHERE id = ?').run(id);
      }
    }).immediate();
    // The pages the deletion overwrote are in the write-ahead log; put them into the file and empty it.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return rows.length;
  }
}
