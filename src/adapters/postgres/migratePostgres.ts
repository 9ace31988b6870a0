import type pg from 'pg';
import { checkOut } from './postgresPool.js';

/** One step of a schema: applied once, in order, inside the transaction of the start that finds it missing. */
export interface PostgresMigration {
  /** 1, 2, 3…: a step's number never changes once released, and steps are never edited, only added. */
  readonly version: number;
  /** What it does, for people reading `schema_migrations`. */
  readonly name: string;
  readonly sql: string;
}

/**
 * The key of the transaction-level advisory lock that every start takes before
 * it looks at the schema (the bytes of "chronicl"): the starts of several processes
 * at once apply each step once, one after the other.
 */
const MIGRATIONS_LOCK = 0x6368726f6e69636cn;

/** The database holds steps of a schema that this release does not know: it was migrated by a newer release. */
export class SchemaTooNewError extends Error {
  override readonly name = 'SchemaTooNewError';
  constructor(
    readonly component: string,
    readonly applied: number,
    readonly known: number,
  ) {
    super(
      `the PostgreSQL database holds version ${applied} of Chronicle's "${component}" schema, but this release knows versions up to ${known}: ` +
        'it was migrated by a newer release. Run that release (or a newer one) against it.',
    );
  }
}

/**
 * Brings `component`'s part of the schema up to date: the steps it has not yet
 * applied run in one transaction, under one advisory lock, and each is recorded in
 * `schema_migrations` (component, version, name, when). Safe when several processes
 * start at once: the others wait for the lock, then find nothing left to do. A
 * database migrated by a newer release is refused (`SchemaTooNewError`) rather than
 * used with tables this release does not know. Answers the versions it applied.
 */
export const migratePostgres = async (pool: pg.Pool, component: string, migrations: readonly PostgresMigration[]): Promise<number[]> => {
  migrations.forEach((migration, i) => {
    if (migration.version !== i + 1) throw new Error(`${component} migrations must be numbered 1, 2, 3… in order (found ${migration.version} at ${i + 1})`);
  });
  const { client, done } = await checkOut(pool);
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATIONS_LOCK.toString()]);
    await client.query(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        component  text        NOT NULL,
        version    integer     NOT NULL,
        name       text        NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (component, version)
      )`);
    const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations WHERE component = $1', [component]);
    const current = rows[0]?.version ?? 0;
    if (current > migrations.length) throw new SchemaTooNewError(component, current, migrations.length);
    const applied: number[] = [];
    for (const migration of migrations.slice(current)) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (component, version, name) VALUES ($1, $2, $3)', [component, migration.version, migration.name]);
      applied.push(migration.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    done();
  }
};
