import type pg from 'pg';
import { timedStep, type CompactionStep, type ErasureCompaction } from '../../application/ports/ErasureCompaction.js';
import { quoteIdentifier } from './postgresReadModelLayout.js';

/** The tables (on the connection's search path) that hold personal values outside the (sealed) events: keys, kept responses, deliveries, companies' exports. */
const LOG_TABLES_WITH_PERSONAL_VALUES = ['subject_keys', 'idempotency_keys', 'webhook_outbox', 'company_exports', 'company_export_chunks'];

/**
 * PostgreSQL's compaction: a row an erasure rewrote or deleted stays in its
 * table's pages as a dead tuple until the table is rewritten, which only
 * `VACUUM FULL` does (a plain `VACUUM` marks the space free and leaves the bytes).
 * So: `VACUUM FULL` of the log's tables that held personal values and of every read
 * model's table, then `CHECKPOINT`, so that the data files hold the rewritten
 * pages. Each `VACUUM FULL` holds its table's ACCESS EXCLUSIVE lock while it runs:
 * writers and readers of that table wait. What stays in `pg_wal`, in archives and
 * on replicas is said in docs/operators/erasure.md.
 */
export class PostgresErasureCompaction implements ErasureCompaction {
  constructor(
    private readonly pool: pg.Pool,
    private readonly readModelSchema: string,
  ) {}

  async compact(): Promise<readonly CompactionStep[]> {
    const steps: CompactionStep[] = [];
    const { rows } = await this.pool.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename', [
      this.readModelSchema,
    ]);
    const tables = [
      ...LOG_TABLES_WITH_PERSONAL_VALUES.map(quoteIdentifier),
      ...rows.map(({ tablename }) => `${quoteIdentifier(this.readModelSchema)}.${quoteIdentifier(tablename)}`),
    ];
    for (const table of tables) {
      steps.push(await timedStep(`VACUUM FULL ${table}`, async () => void (await this.pool.query(`VACUUM FULL ${table}`))));
    }
    steps.push(
      await timedStep('CHECKPOINT', async () => {
        try {
          await this.pool.query('CHECKPOINT');
          return { done: true };
        } catch (error) {
          // CHECKPOINT needs a superuser or pg_checkpoint (PostgreSQL 15+); the server's own checkpoints follow anyway.
          return { done: false, note: `not allowed for this role (${(error as Error).message}); the next automatic checkpoint does it` };
        }
      }),
    );
    return steps;
  }
}
