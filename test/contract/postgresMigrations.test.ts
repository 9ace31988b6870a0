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
  });
}
