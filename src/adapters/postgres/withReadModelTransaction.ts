import type pg from 'pg';
import { checkOut } from './postgresPool.js';

/** What a transaction's work may send with its `COMMIT` (see `withReadModelTransaction`). */
export interface Closing {
  /** Statements sent with the `COMMIT`, in one round trip: their values inlined as literals (`inlined`). */
  readonly statements: string[];
}

/**
 * Runs `use` on a connection of the pool, inside the transaction it opens; when `use`
 * fails, rolls back and throws what failed. A connection whose rollback fails too, or
 * that broke meanwhile, is closed rather than handed back to the pool.
 */
const inTransactionOf = async <T>(pool: pg.Pool, use: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
  const { client, done } = await checkOut(pool);
  let broken = false;
  try {
    return await use(client);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    done(broken);
  }
};

/**
 * Sends `statements` (values inlined) between a `BEGIN` and a `COMMIT` as one simple
 * query, one round trip. The first statement that fails stops the rest: the
 * transaction is then rolled back and the error thrown.
 */
export const inOneRoundTrip = (pool: pg.Pool, statements: readonly string[]): Promise<void> =>
  inTransactionOf(pool, async (client) => {
    await client.query(['BEGIN', ...statements, 'COMMIT'].join(';\n'));
  });

/**
 * Runs `work` in one transaction on a connection of the pool, then commits (or
 * rolls back, and throws what failed; see `inTransactionOf`).
 *
 * `opening` (statements of the caller's, their values inlined as literals) goes with
 * the `BEGIN` as one simple query, one round trip: `work` gets their results. What
 * `work` puts in `closing.statements` goes with the `COMMIT` the same way. Each
 * statement of such a query still takes its own snapshot (READ COMMITTED), as if sent
 * alone, and the first that fails stops the rest (the transaction is then rolled back).
 */
export const withReadModelTransaction = <T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient, opened: readonly pg.QueryResult[], closing: Closing) => Promise<T>,
  opening: readonly string[] = [],
): Promise<T> =>
  inTransactionOf(pool, async (client) => {
    const begun = (await client.query(['BEGIN', ...opening].join(';\n'))) as pg.QueryResult | pg.QueryResult[];
    const closing: Closing = { statements: [] };
    const result = await work(client, Array.isArray(begun) ? begun.slice(1) : [], closing);
    await client.query([...closing.statements, 'COMMIT'].join(';\n'));
    return result;
  });
