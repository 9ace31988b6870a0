import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './openSqliteDatabase.js';

/**
 * The integer key of each company in the read-model file (`read_model_companies`),
 * which every read-model table and index holds instead of the company's id. A key
 * is assigned once and never changes or goes away, so keys read from committed rows
 * are cached; keys a write transaction finds or assigns are kept aside until it
 * commits (a rolled-back assignment may be given to another company later). A write
 * inside a transaction already open (a batch of the store's shared commit) is a
 * savepoint: when it fails, the keys it assigned are forgotten with it; the others
 * wait for the transaction's end (`transactionCommitted`, `transactionRolledBack`).
 */
export class ReadModelCompanies {
  private readonly settled = new Map<string, number>();
  private readonly pending = new Map<string, number>();
  private readonly findStatement: Statement<[string], { cid: number }>;
  private readonly addStatement: Statement<[string]>;
  private readonly savepoint: { begin: Statement; release: Statement; rollback: Statement };

  constructor(private readonly db: SqliteDatabase) {
    this.findStatement = db.prepare('SELECT cid FROM read_model_companies WHERE company_id = ?');
    this.addStatement = db.prepare('INSERT INTO read_model_companies (company_id) VALUES (?)');
    this.savepoint = {
      begin: db.prepare('SAVEPOINT read_model_write'),
      release: db.prepare('RELEASE read_model_write'),
      rollback: db.prepare('ROLLBACK TO read_model_write'),
    };
  }

  /** The company's key, or null when no read model ever held a document of it (reads, outside a write). */
  find(companyId: string): number | null {
    const known = this.settled.get(companyId) ?? this.pending.get(companyId);
    if (known !== undefined) return known;
    const row = this.findStatement.get(companyId);
    if (!row) return null;
    // Inside an open transaction the row may be one it wrote, and may still be rolled back.
    if (!this.db.inTransaction) this.settled.set(companyId, row.cid);
    return row.cid;
  }

  /** The company's key, assigned now when it has none (inside a write transaction of `write`). */
  key(companyId: string): number {
    const known = this.settled.get(companyId) ?? this.pending.get(companyId);
    if (known !== undefined) return known;
    const cid = this.findStatement.get(companyId)?.cid ?? Number(this.addStatement.run(companyId).lastInsertRowid);
    this.pending.set(companyId, cid);
    return cid;
  }

  /**
   * Runs `work` in one write transaction (BEGIN IMMEDIATE), keeping the keys it used
   * once it commits. Inside a transaction already: in a savepoint, the keys kept
   * aside until whoever opened the transaction says how it ended.
   */
  write<T>(work: () => T): T {
    if (this.db.inTransaction) return this.inSavepoint(work);
    try {
      const result = this.db.transaction(work).immediate();
      this.keepPending();
      return result;
    } finally {
      this.pending.clear();
    }
  }

  /** The transaction the keys kept aside were assigned in has committed: they are for good. */
  transactionCommitted(): void {
    this.keepPending();
    this.pending.clear();
  }

  /** The transaction the keys kept aside were assigned in was rolled back: they are forgotten. */
  transactionRolledBack(): void {
    this.pending.clear();
  }

  private keepPending(): void {
    for (const [companyId, cid] of this.pending) this.settled.set(companyId, cid);
  }

  private inSavepoint<T>(work: () => T): T {
    const before = new Set(this.pending.keys());
    this.savepoint.begin.run();
    try {
      const result = work();
      this.savepoint.release.run();
      return result;
    } catch (error) {
      // Rolled back alone (unless SQLite rolled back the whole transaction already).
      if (this.db.inTransaction) {
        this.savepoint.rollback.run();
        this.savepoint.release.run();
      }
      for (const companyId of [...this.pending.keys()]) if (!before.has(companyId)) this.pending.delete(companyId);
      throw error;
    }
  }
}
