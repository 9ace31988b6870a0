import type { PostgresMigration } from './migratePostgres.js';

/** The component name of these steps in `schema_migrations`: the company exports' tables. */
export const EXPORTS_SCHEMA = 'exports';

/** Company exports and their archives' bytes, in chunks (see CompanyExportStore). */
const exportsAndChunks: PostgresMigration = {
  version: 1,
  name: 'company exports and their archives in chunks',
  sql: `
    CREATE TABLE company_exports (
      id         text        PRIMARY KEY,
      company_id text        NOT NULL,
      expires_at timestamptz NOT NULL,
      record     jsonb       NOT NULL
    );
    CREATE INDEX company_exports_company ON company_exports (company_id);
    CREATE INDEX company_exports_expiry ON company_exports (expires_at);

    CREATE TABLE company_export_chunks (
      export_id text    NOT NULL REFERENCES company_exports (id) ON DELETE CASCADE,
      seq       integer NOT NULL,
      bytes     bytea   NOT NULL,
      PRIMARY KEY (export_id, seq)
    );
  `,
};

/** Every step of the exports' part of the schema, in order (see migratePostgres). */
export const exportMigrations: readonly PostgresMigration[] = [exportsAndChunks];
