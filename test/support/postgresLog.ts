import type pg from 'pg';
import { LOG_SCHEMA, logMigrations } from '../../src/adapters/postgres/logMigrations.js';
import { migratePostgres } from '../../src/adapters/postgres/migratePostgres.js';
import { createPostgresPool } from '../../src/adapters/postgres/postgresPool.js';
import { freshPostgresDatabase, type FreshDatabase } from './postgres.js';

/** A pool on `url` with the log's part of the schema in place (the pool is the caller's to end). */
export const migratedLogPool = async (url: string, max = 4): Promise<pg.Pool> => {
  const pool = createPostgresPool(url, { max, applicationName: 'chronicle-test' });
  try {
    await migratePostgres(pool, LOG_SCHEMA, logMigrations);
    return pool;
  } catch (error) {
    await pool.end();
    throw error;
  }
};

/**
 * One database for the fixtures of a file, made at first use and dropped once the
 * whole run is over: the contract suites need no empty database per test (their
 * streams, keys and names are unique), and a database per test costs a CREATE
 * DATABASE each.
 */
export const databaseForThisFile = (): (() => Promise<FreshDatabase>) => {
  let made: Promise<FreshDatabase> | null = null;
  after(async () => {
    if (made) await (await made).drop();
  });
  return () => (made ??= freshPostgresDatabase());
};
