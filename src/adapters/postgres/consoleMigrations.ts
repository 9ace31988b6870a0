import type { PostgresMigration } from './migratePostgres.js';

/** The component name of these steps in `schema_migrations`: the console's tables, apart from the log's and the read models'. */
export const CONSOLE_SCHEMA = 'console';

/** Console sessions and usage counters (see ConsoleSessionStore and UsageCounters). */
const sessionsAndUsage: PostgresMigration = {
  version: 1,
  name: 'console sessions and per-company usage counters by hour',
  sql: `
    CREATE TABLE console_sessions (
      session_id      text        PRIMARY KEY,
      company_id      text        NOT NULL,
      secret_hash     text        NOT NULL,
      created_at      timestamptz NOT NULL,
      expires_at      timestamptz NOT NULL,
      idle_expires_at timestamptz NOT NULL
    );
    CREATE INDEX console_sessions_end ON console_sessions (idle_expires_at);

    CREATE TABLE usage_counters (
      company_id        text        NOT NULL,
      hour              timestamptz NOT NULL,
      key_id            text        NOT NULL,
      requests          bigint      NOT NULL DEFAULT 0,
      limited           bigint      NOT NULL DEFAULT 0,
      deliveries_ok     bigint      NOT NULL DEFAULT 0,
      deliveries_failed bigint      NOT NULL DEFAULT 0,
      PRIMARY KEY (company_id, hour, key_id)
    );
    CREATE INDEX usage_counters_hour ON usage_counters (hour);
  `,
};

/** Sessions ended all at once: a company's (the platform offboards it), an admin token's (it was revoked). */
const sessionsEndedTogether: PostgresMigration = {
  version: 2,
  name: 'console sessions: the admin token whose link opened each, ended by company or by token',
  sql: `
    ALTER TABLE console_sessions ADD COLUMN admin_token_id text;
    CREATE INDEX console_sessions_company ON console_sessions (company_id);
    CREATE INDEX console_sessions_admin_token ON console_sessions (admin_token_id) WHERE admin_token_id IS NOT NULL;
  `,
};

/** Every step of the console's part of the schema, in order (see migratePostgres). */
export const consoleMigrations: readonly PostgresMigration[] = [sessionsAndUsage, sessionsEndedTogether];
