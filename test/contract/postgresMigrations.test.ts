import { expect } from 'chai';
import { LOG_SCHEMA, logMigrations } from '../../src/adapters/postgres/logMigrations.js';
import { SchemaTooNewError, migratePostgres } from '../../src/adapters/postgres/migratePostgres.js';
import { createPostgresPool } from '../../src/adapters/postgres/postgresPool.js';
import { skipLine } from '../support/integration.js';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../support/postgres.js';

if (!postgresTestUrl()) {
  skipLine('PostgreSQL schema migrations at start', 'POSTGRES_TEST_URL');
} else {
  describe('PostgreSQL schema migrations at start', function () {
    this.timeout(30_000);
    let database: FreshDatabase;
    beforeEach(async () => (database = await freshPostgresDatabase()));
    afterEach(() => database.drop());

    it('apply each step once when several processes start at once, and nothing on the next start', async () => {
      const pools = Array.from({ length: 6 }, () => createPostgresPool(database.url, { max: 1 }));
      try {
        const applied = await Promise.all(pools.map((pool) => migratePostgres(pool, LOG_SCHEMA, logMigrations)));
        const all = logMigrations.map((step) => step.version);
        // One start applied every step; the others waited for its lock and found nothing left.
        expect(applied.filter((versions) => versions.length > 0)).to.deep.equal([all]);
        const { rows } = await pools[0]!.query<{ version: number; name: string }>(
          "SELECT version, name FROM schema_migrations WHERE component = 'log' ORDER BY version",
        );
        expect(rows).to.deep.equal(logMigrations.map(({ version, name }) => ({ version, name })));
        expect(await migratePostgres(pools[1]!, LOG_SCHEMA, logMigrations)).to.deep.equal([]);
      } finally {
        await Promise.all(pools.map((pool) => pool.end()));
      }
    });

    it('apply only the steps a database lacks, and keep components apart', async () => {
      const pool = createPostgresPool(database.url, { max: 1 });
      try {
        expect(await migratePostgres(pool, LOG_SCHEMA, logMigrations.slice(0, 1))).to.deep.equal([1]);
        expect(await migratePostgres(pool, LOG_SCHEMA, logMigrations)).to.deep.equal(logMigrations.slice(1).map((step) => step.version));
        const other = [{ version: 1, name: 'a table of another component', sql: 'CREATE TABLE other_component (id integer)' }];
        expect(await migratePostgres(pool, 'other', other)).to.deep.equal([1]);
      } finally {
        await pool.end();
      }
    });

    it('roll a failing step back whole, and refuse a database migrated by a newer release', async () => {
      const pool = createPostgresPool(database.url, { max: 1 });
      try {
        const failing = [
          { version: 1, name: 'a table', sql: 'CREATE TABLE kept_or_not (id integer)' },
          { version: 2, name: 'a mistake', sql: 'CREATE TABLE kept_or_not (id integer)' },
        ];
        const error = await migratePostgres(pool, 'trial', failing).catch((caught: unknown) => caught);
        expect(error).to.be.an('error');
        const { rows } = await pool.query("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'kept_or_not'");
        expect(rows[0].n, 'the first step went with the second').to.equal(0);

        await migratePostgres(pool, LOG_SCHEMA, logMigrations);
        const older = await migratePostgres(pool, LOG_SCHEMA, logMigrations.slice(0, 2)).catch((caught: unknown) => caught);
        expect(older).to.be.instanceOf(SchemaTooNewError);
        expect(older).to.include({ component: 'log', applied: logMigrations.length, known: 2 });
        expect((older as Error).message).to.match(/migrated by a newer release/);
      } finally {
        await pool.end();
      }
    });

    it('step 5: log_append reads the stored ids without scanning a log that grew after its plans were cached', async () => {
      const pool = createPostgresPool(database.url, { max: 1 });
      try {
        await migratePostgres(pool, LOG_SCHEMA, logMigrations.slice(0, 4));
        // Statistics come only when the test says: the plans stay those of a small log.
        await pool.query('ALTER TABLE log_events SET (autovacuum_enabled = off)');
        let n = 0;
        /** One group of eight appends on the pool's one connection: the sequential scans of the log it made. */
        const append = async (): Promise<number> => {
          n += 1;
          const eight = (prefix: string) => `array(SELECT '${prefix}-${n}-' || i FROM generate_series(1, 8) AS i)`;
          const scans = "SELECT seq_scan::int AS scans FROM pg_stat_xact_user_tables WHERE relname = 'log_events'";
          const results = (await pool.query(
            `BEGIN; ${scans}; SELECT log_append('10s', ARRAY[1, 2, 3, 4, 5, 6, 7, 8], ${eight('s')}, array_fill('any'::text, ARRAY[8]), ` +
              `array_fill(1, ARRAY[8]), ${eight('id')}, array_fill('T'::text, ARRAY[8]), array_fill('{}'::text, ARRAY[8]), array_fill('{}'::text, ARRAY[8])); ${scans}; COMMIT`,
          )) as unknown as { rows: { scans: number }[] }[];
          // The counts of this session not yet reported, from before this transaction too: the difference is this call's.
          return results[3]!.rows[0]!.scans - results[1]!.rows[0]!.scans;
        };
        const grow = async (from: number, to: number) => {
          await pool.query(`INSERT INTO log_events SELECT p, 'bulk-' || p, 'bulk-' || p, 0, 'T', '{}', '{}', now() FROM generate_series(${from}, ${to}) AS p`);
          await pool.query(`UPDATE log_head SET position = ${to}`);
        };
        // A log of a few hundred events, analyzed: from the sixth call on, the connection keeps a plan made for it.
        await grow(1_000, 1_300);
        await pool.query('ANALYZE log_events');
        for (let i = 0; i < 8; i++) await append();
        await grow(2_000, 22_000);
        expect(await append(), 'release 1: the cached plan scans the log').to.equal(1);
        expect(await migratePostgres(pool, LOG_SCHEMA, logMigrations.slice(0, 5))).to.deep.equal([5]);
        for (let i = 0; i < 8; i++) expect(await append(), `call ${i + 1} after step 5`).to.equal(0);
      } finally {
        await pool.end();
      }
    });
  });
}
