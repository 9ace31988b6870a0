import type pg from 'pg';
import { quoteIdentifier, type LayoutContext } from './postgresReadModelLayout.js';
import type { LowerCasing } from './toPostgresFilter.js';
import { withReadModelTransaction } from './withReadModelTransaction.js';

/** The schema the read models live in unless told otherwise: apart from every other table of the database. */
export const DEFAULT_READ_MODEL_SCHEMA = 'read_models';

/** The steps of the read models' schema, in order: a step is never edited once released, only followed by new ones. */
const MIGRATIONS: readonly { readonly name: string; readonly sql: (schema: string) => string }[] = [
  {
    name: 'checkpoints, layouts, company keys, leases',
    sql: (s) => `
      CREATE TABLE ${s}.checkpoints (
        name     text PRIMARY KEY,
        position text NOT NULL,
        event_id text
      );
      CREATE TABLE ${s}.read_model_tables (
        name   text PRIMARY KEY,
        layout text NOT NULL
      );
      CREATE TABLE ${s}.read_model_companies (
        cid        integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        company_id text NOT NULL UNIQUE
      );
      CREATE TABLE ${s}.leases (
        name                text PRIMARY KEY,
        owner               text NOT NULL,
        role                text NOT NULL,
        pid                 integer NOT NULL,
        host                text NOT NULL,
        scope               text,
        acquired_at         text NOT NULL,
        renewed_at          text NOT NULL,
        renewed_by_database timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    // Read models created empty beside documents that had applied the log: built from the log before the projector resumes.
    name: 'read models to build',
    sql: (s) => `CREATE TABLE ${s}.read_models_to_build (name text PRIMARY KEY);`,
  },
];

/** The database holds steps of the read models' schema that this release does not know. */
export class ReadModelSchemaTooNewError extends Error {
  override readonly name = 'ReadModelSchemaTooNewError';
  constructor(
    readonly schema: string,
    readonly applied: number,
    readonly known: number,
  ) {
    super(
      `the PostgreSQL schema "${schema}" holds version ${applied} of Chronicle's read models, but this release knows versions up to ${known}: ` +
        'it was migrated by a newer release. Run that release (or a newer one) against it.',
    );
  }
}

export interface ReadModelDatabase extends LayoutContext, LowerCasing {}

/**
 * The read models' schema as a streaming replica holds it (read only): the steps this
 * release knows must all be there (the primary applies them; replication brings them).
 */
export const readReplicaSchema = async (pool: pg.Pool, schema: string): Promise<ReadModelDatabase> => {
  const s = quoteIdentifier(schema);
  const table = await pool.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [`${s}.read_model_migrations`]);
  const applied = table.rows[0]?.exists
    ? await pool.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${s}.read_model_migrations`)
    : { rows: [] };
  const version = applied.rows[0]?.version ?? 0;
  if (version > MIGRATIONS.length) throw new ReadModelSchemaTooNewError(schema, version, MIGRATIONS.length);
  if (version < MIGRATIONS.length) {
    throw new Error(`the replica holds version ${version} of the read models' schema "${schema}", not ${MIGRATIONS.length}: start the projector on the primary first`);
  }
  const where = await pool.query<{ schema: string }>(
    "SELECT n.nspname AS schema FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'",
  );
  const icu = await pool.query<{ name: string }>("SELECT collname AS name FROM pg_collation WHERE collname = 'und-x-icu' AND collprovider = 'i'");
  return { schema, trigramSchema: where.rows[0]!.schema, icuCollation: icu.rows[0]?.name ?? null };
};

/**
 * Makes the read models' schema ready, in one transaction under an advisory lock
 * (processes starting at once apply each step once): the schema, the pg_trgm
 * extension (a trusted extension: the database's owner, or any role that may
 * create in the database, installs it), and the steps of `MIGRATIONS` not yet
 * applied, recorded in `read_model_migrations`. Answers where pg_trgm lives and
 * whether the server lower-cases with ICU.
 */
export const prepareReadModelSchema = async (pool: pg.Pool, schema: string): Promise<ReadModelDatabase> => {
  const s = quoteIdentifier(schema);
  return withReadModelTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('chronicle read models'), hashtext($1))", [schema]);
    // Looked up first: IF NOT EXISTS alone would ask for the privilege to create even what exists.
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${s}`);
    const trigram = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'");
    if (trigram.rowCount === 0) await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.read_model_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${s}.read_model_migrations`);
    const applied = rows[0]?.version ?? 0;
    if (applied > MIGRATIONS.length) throw new ReadModelSchemaTooNewError(schema, applied, MIGRATIONS.length);
    for (const [i, migration] of MIGRATIONS.entries()) {
      if (i < applied) continue;
      await client.query(migration.sql(s));
      await client.query(`INSERT INTO ${s}.read_model_migrations (version, name) VALUES ($1, $2)`, [i + 1, migration.name]);
    }
    const where = await client.query<{ schema: string }>(
      "SELECT n.nspname AS schema FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'",
    );
    const icu = await client.query<{ name: string }>("SELECT collname AS name FROM pg_collation WHERE collname = 'und-x-icu' AND collprovider = 'i'");
    return { schema, trigramSchema: where.rows[0]!.schema, icuCollation: icu.rows[0]?.name ?? null };
  });
};
