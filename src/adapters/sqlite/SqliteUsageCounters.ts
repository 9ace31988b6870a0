import type { Statement, Transaction } from 'better-sqlite3';
import type { UsageCounters, UsageRow } from '../../application/ports/UsageCounters.js';
import { openConsoleDatabase } from './openConsoleDatabase.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';
import { whenLockFree } from './writeLock.js';

interface Row {
  company_id: string;
  hour: number;
  key_id: string;
  requests: number;
  limited: number;
  deliveries_ok: number;
  deliveries_failed: number;
}

/**
 * Usage counters in `DATA_DIR/console.sqlite`, shared by every process on the
 * DATA_DIR. A batch is one transaction of upserts that add to the stored counts
 * (`ON CONFLICT DO UPDATE SET n = n + excluded.n`), so batches of several
 * processes add up. Deliveries are stored under the key id '' (they have none).
 */
export class SqliteUsageCounters implements UsageCounters {
  private readonly statements: {
    readonly add: Statement<[string, number, string, number, number, number, number]>;
    readonly read: Statement<[string, number, number], Row>;
    readonly prune: Statement<[number]>;
    readonly forgetCompany: Statement<[string]>;
  };
  private readonly addAll: Transaction<(rows: readonly UsageRow[]) => void>;

  private constructor(private readonly db: SqliteDatabase) {
    this.statements = {
      add: db.prepare(
        `INSERT INTO usage_counters (company_id, hour, key_id, requests, limited, deliveries_ok, deliveries_failed)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (company_id, hour, key_id) DO UPDATE SET
           requests = requests + excluded.requests, limited = limited + excluded.limited,
           deliveries_ok = deliveries_ok + excluded.deliveries_ok, deliveries_failed = deliveries_failed + excluded.deliveries_failed`,
      ),
      read: db.prepare('SELECT * FROM usage_counters WHERE company_id = ? AND hour >= ? AND hour < ?'),
      prune: db.prepare('DELETE FROM usage_counters WHERE hour < ?'),
      forgetCompany: db.prepare('DELETE FROM usage_counters WHERE company_id = ?'),
    };
    this.addAll = db.transaction((rows: readonly UsageRow[]) => {
      for (const row of rows) {
        this.statements.add.run(row.companyId, row.hour.getTime(), row.keyId ?? '', row.requests, row.limited, row.deliveriesOk, row.deliveriesFailed);
      }
    });
  }

  /** Opens (and migrates) the console's file with a connection of its own. */
  static open(file: string): SqliteUsageCounters {
    return new SqliteUsageCounters(openConsoleDatabase(file));
  }

  async add(rows: readonly UsageRow[]): Promise<void> {
    if (rows.length === 0) return;
    await whenLockFree(this.db, () => this.addAll.immediate(rows));
  }

  async read(companyId: string, from: Date, to: Date): Promise<readonly UsageRow[]> {
    return this.statements.read.all(companyId, from.getTime(), to.getTime()).map((row) => ({
      companyId: row.company_id,
      hour: new Date(row.hour),
      keyId: row.key_id === '' ? null : row.key_id,
      requests: row.requests,
      limited: row.limited,
      deliveriesOk: row.deliveries_ok,
      deliveriesFailed: row.deliveries_failed,
    }));
  }

  async forgetCompany(companyId: string): Promise<number> {
    return (await whenLockFree(this.db, () => this.statements.forgetCompany.run(companyId))).changes;
  }

  async prune(before: Date): Promise<number> {
    return (await whenLockFree(this.db, () => this.statements.prune.run(before.getTime()))).changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
