import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './openSqliteDatabase.js';

/**
 * The integer key of each company in the read-model file (`read_model_companies`),
 * which every read-model table and index holds instead of the company's id. A key
 * is assigned once and never changes or goes away, so keys read from committed rows
 * are cached; keys a write transaction finds or assigns are kept aside until it
 * commits (a rolled-back assignment may be given to another company later).
 */
export class ReadModelCompanies {
  private readonly committed = new Map<string, number>();
  private readonly pending = new Map<string, number>();
  private readonly findStatement: Statement<[string], { cid: number }>;
  private readonly addStatement: Statement<[string]>;

  constructor(private readonly db: SqliteDatabase) {
    this.findStatement = db.prepare('SELECT cid FROM read_model_companies WHERE company_id = ?');
    this.addStatement = db.prepare('INSERT INTO read_model_companies (company_id) VALUES (?)');
  }

  /** The company's key, or null when no read model ever held a document of it (reads, outside a write). */
  find(companyId: string): number | null {
    const known = this.committed.get(companyId);
    if (known !== undefined) return known;
    const row = this.findStatement.get(companyId);
    if (!row) return null;
    this.committed.set(companyId, row.cid);
    return row.cid;
  }

  /** The company's key, assigned now when it has none (inside a write transaction of `write`). */
  key(companyId: string): number {
    const known = this.committed.get(companyId) ?? this.pending.get(companyId);
    if (known !== undefined) return known;
    const cid = this.findStatement.get(companyId)?.cid ?? Number(this.addStatement.run(companyId).lastInsertRowid);
    this.pending.set(companyId, cid);
    return cid;
  }

  /** Runs `work` in one write transaction (BEGIN IMMEDIATE), keeping the keys it used once it commits. */
  write<T>(work: () => T): T {
    // Inside a transaction already: the outermost write keeps the keys when it commits.
    if (this.db.inTransaction) return work();
    try {
      const result = this.db.transaction(work).immediate();
      for (const [companyId, cid] of this.pending) this.committed.set(companyId, cid);
      return result;
    } finally {
      this.pending.clear();
    }
  }
}
