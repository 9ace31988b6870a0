import type pg from 'pg';
import { checkOut } from './postgresPool.js';

/**
 * Runs `work` in one transaction on a connection of the pool, then commits (or
 * rolls back, and throws what failed). A connection whose rollback fails too, or
 * that broke meanwhile, is closed rather than handed back to the pool.
 */
export const withReadModelTransaction = async <T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
  const { client, done } = await checkOut(pool);
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    done(broken);
  }
};
