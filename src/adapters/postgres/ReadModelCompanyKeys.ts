import type pg from 'pg';
import { readQuery } from './postgresPool.js';
import { storableText } from './storableText.js';

/**
 * The integer key of each company in `read_model_companies`, which every
 * read-model table and index holds instead of the company's id (4 bytes in every
 * index entry instead of a 36-character id). A key is assigned once and never
 * changes or goes away, so keys read from committed rows are kept; keys a write
 * transaction assigns are kept once it has committed (`remember`).
 */
export class ReadModelCompanyKeys {
  private readonly known = new Map<string, number>();

  constructor(
    private readonly pool: pg.Pool,
    /** The qualified `read_model_companies` table. */
    private readonly table: string,
  ) {}

  /** The company's key, or null when no read model ever held a document of it. */
  async find(companyId: string): Promise<number | null> {
    const known = this.known.get(companyId);
    if (known !== undefined) return known;
    const { rows } = await readQuery<{ cid: number }>(this.pool, `SELECT cid FROM ${this.table} WHERE company_id = $1`, [storableText(companyId)]);
    const cid = rows[0]?.cid;
    if (cid === undefined) return null;
    this.known.set(companyId, cid);
    return cid;
  }

  /** The keys of `companyIds` when this process knows every one of them already (null: one is not known). */
  knownKeys(companyIds: Iterable<string>): Map<string, number> | null {
    const keys = new Map<string, number>();
    for (const companyId of companyIds) {
      const known = this.known.get(companyId);
      if (known === undefined) return null;
      keys.set(companyId, known);
    }
    return keys;
  }

  /**
   * The keys of `companyIds`, assigned now to those that have none, inside the
   * caller's transaction (a company another transaction is assigning waits for it).
   * Hand them to `remember` once the transaction has committed.
   */
  async assign(client: pg.ClientBase, companyIds: Iterable<string>): Promise<Map<string, number>> {
    const keys = new Map<string, number>();
    const missing: string[] = [];
    for (const companyId of new Set(companyIds)) {
      const known = this.known.get(companyId);
      if (known === undefined) missing.push(companyId);
      else keys.set(companyId, known);
    }
    if (missing.length === 0) return keys;
    const stored = missing.map(storableText);
    await client.query(`INSERT INTO ${this.table} (company_id) SELECT unnest($1::text[]) ON CONFLICT (company_id) DO NOTHING`, [stored]);
    const { rows } = await client.query<{ cid: number; company_id: string }>(
      `SELECT cid, company_id FROM ${this.table} WHERE company_id = ANY($1::text[])`,
      [stored],
    );
    const byStored = new Map(rows.map((row) => [row.company_id, row.cid]));
    for (const companyId of missing) {
      const cid = byStored.get(storableText(companyId));
      if (cid === undefined) throw new Error(`No key was assigned to company ${JSON.stringify(companyId)}`);
      keys.set(companyId, cid);
    }
    return keys;
  }

  /** Keeps keys a committed transaction assigned or read. */
  remember(keys: ReadonlyMap<string, number>): void {
    for (const [companyId, cid] of keys) this.known.set(companyId, cid);
  }
}
