import { openSqliteDatabase } from '../../src/adapters/sqlite/openSqliteDatabase.js';
import { LOG_SCHEMA, logMigrations } from '../../src/adapters/postgres/logMigrations.js';
import { migratePostgres } from '../../src/adapters/postgres/migratePostgres.js';
import { createPostgresPool } from '../../src/adapters/postgres/postgresPool.js';

const PAGE = 5_000;

interface Row {
  position: number;
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

/**
 * Copies an embedded log (the SQLite file) into a PostgreSQL database's log, the
 * same events at the same positions, in pages of 5,000 rows, each page one
 * statement: how the benchmarks give both engines the same seeded log. The database
 * gets the log's part of the schema first; the copy fills an empty log only.
 */
export const copyLogToPostgres = async (file: string, url: string): Promise<number> => {
  const db = openSqliteDatabase(file);
  const pool = createPostgresPool(url, { max: 2, applicationName: 'chronicle-bench-seed' });
  try {
    await migratePostgres(pool, LOG_SCHEMA, logMigrations);
    const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM log_events');
    if (Number(rows[0]!.n) !== 0) throw new Error('copyLogToPostgres: the PostgreSQL log is not empty');
    const page = db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?');
    let copied = 0;
    for (let after = 0; ; ) {
      const events = page.all(after, PAGE);
      if (events.length === 0) break;
      const column = <T>(pick: (row: Row) => T): T[] => events.map(pick);
      await pool.query(
        `INSERT INTO log_events (position, id, stream, revision, type, data, metadata, recorded_at)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::integer[], $5::text[], $6::json[], $7::json[], $8::timestamptz[])`,
        [
          column((r) => r.position),
          column((r) => r.id),
          column((r) => r.stream),
          column((r) => r.revision),
          column((r) => r.type),
          column((r) => r.data),
          column((r) => r.metadata),
          column((r) => r.recorded_at),
        ],
      );
      copied += events.length;
      after = events[events.length - 1]!.position;
    }
    await pool.query('UPDATE log_head SET position = (SELECT coalesce(max(position), 0) FROM log_events)');
    await pool.query('VACUUM ANALYZE log_events');
    return copied;
  } finally {
    db.close();
    await pool.end();
  }
};
