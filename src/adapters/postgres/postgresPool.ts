import { createHash } from 'node:crypto';
import pg from 'pg';
import { StoreUnavailableError } from '../../application/ports/StoreUnavailableError.js';
import { breaksConnection, connectionUnavailable, interruptedWrite, sqlState, translatePostgresError } from './postgresErrors.js';

export interface PostgresPoolOptions {
  /** Connections the pool opens at most (POSTGRES_POOL_SIZE). */
  readonly max?: number;
  /** Names the process's connections in pg_stat_activity. */
  readonly applicationName?: string;
  /** Told of an idle connection's failure (the server restarted): the pool replaces it by itself. */
  readonly onIdleError?: (error: Error) => void;
  /**
   * Commits on these connections answer before their WAL reaches the disk
   * (`synchronous_commit = off`): for writes that may be lost in a crash of the
   * database (at most its last `wal_writer_delay`s), never for the log's.
   */
  readonly asynchronousCommit?: boolean;
  /** Every transaction on these connections is read-only (`default_transaction_read_only`): a replica's reads. */
  readonly readOnly?: boolean;
  /** How long a query waits for a free connection before it fails (default 10 s). */
  readonly connectionWaitMs?: number;
}

/** How long a query waits for a free connection (a full pool, a server that does not answer) before it fails as busy. */
const CONNECTION_WAIT_MS = 10_000;

/**
 * The pool every PostgreSQL store of a process shares. TCP keep-alive finds a
 * connection whose server went away; an idle connection that fails is dropped and
 * replaced by the pool (the error is told, never thrown: an unhandled 'error'
 * would end the process).
 */
export const createPostgresPool = (url: string, options: PostgresPoolOptions = {}): pg.Pool => {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'chronicle',
    connectionTimeoutMillis: options.connectionWaitMs ?? CONNECTION_WAIT_MS,
    keepAlive: true,
    ...(options.asynchronousCommit ? { options: '-c synchronous_commit=off' } : {}),
    ...(options.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  pool.on('error', (error) => options.onIdleError?.(error));
  return pool;
};

/** A connection taken from the pool, given back (or dropped) by `done`. */
export interface HeldConnection {
  readonly client: pg.PoolClient;
  /** Gives the connection back to the pool; drops it instead when `drop`, or when it broke while held. */
  done(drop?: boolean): void;
}

/**
 * Takes a connection from the pool for one use. pg tells of a connection's failure
 * (the server restarting or ending its session, the socket reset) as an 'error'
 * event on it, even between two of its statements; the pool listens only on the
 * connections it holds idle, and an 'error' event without a listener ends the
 * process. So a connection carries a listener of its own while it is held, which
 * notes that it broke: a statement in flight fails by itself, and the pool never
 * gets the connection back.
 *
 * The listener is attached in the pool's callback, in the very call that hands the
 * connection over, not after an `await`: a connection given back inside its socket's
 * handler (by `pool.query`, when its answer is read) passes at once to the next one
 * waiting, and the server's goodbye read from the same buffer as that answer is told
 * before any awaiting code could run.
 */
export const checkOut = (pool: pg.Pool): Promise<HeldConnection> =>
  new Promise((resolve, reject) => {
    pool.connect((error, client, release) => {
      if (error || !client) {
        reject(error ?? new Error('the pool gave no connection'));
        return;
      }
      let broken = false;
      const onError = (): void => {
        broken = true;
      };
      client.on('error', onError);
      resolve({
        client,
        done: (drop = false) => {
          client.removeListener('error', onError);
          release(broken || drop);
        },
      });
    });
  });

/**
 * Runs `use` on a connection of the pool. A connection that cannot be had fails
 * as busy (nothing was sent); a server error that says nothing was written is
 * translated (see translatePostgresError); a connection left broken is dropped,
 * and the error says the write was interrupted (its outcome unknown: 503
 * STORE_INTERRUPTED, never a 500; see interruptedWrite).
 */
export const withConnection = async <T>(pool: pg.Pool, use: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
  let held: HeldConnection;
  try {
    held = await checkOut(pool);
  } catch (error) {
    throw connectionUnavailable(error);
  }
  let broken = false;
  try {
    return await use(held.client);
  } catch (error) {
    // Dropped rather than given back: whatever broke it, or an error that is not the server's (nothing says the connection is fine).
    broken = sqlState(error) === null || breaksConnection(error);
    throw interruptedWrite(translatePostgresError(error));
  } finally {
    held.done(broken);
  }
};

/** One statement on a connection of the pool (see withConnection). */
export const query = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: readonly unknown[] = [],
): Promise<pg.QueryResult<R>> => withConnection(pool, (client) => client.query<R>(text, values as unknown[]));

/**
 * The error of a statement that only reads: one whose connection broke, or whose session
 * the server ended (a restart, an administrator, a failover: SQLSTATE classes 08 and 57P),
 * wrote nothing whatever it was doing, so it fails as busy (503 with Retry-After), like a
 * connection that could not be had.
 */
const asReadFailure = (error: unknown): unknown => {
  const cause = error instanceof StoreUnavailableError && error.reason === 'interrupted' ? error.cause : error;
  return error instanceof StoreUnavailableError && error.reason !== 'interrupted'
    ? error
    : breaksConnection(cause)
      ? new StoreUnavailableError('busy', 1, { cause })
      : cause;
};

/**
 * Runs a statement that only reads, once more on a new connection when its connection broke
 * (a failover cuts every connection to the old primary: the next one reaches the new primary,
 * or fails to connect), and translates what still fails (see asReadFailure).
 */
export const readOnce = async <T>(run: () => Promise<T>): Promise<T> => {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof StoreUnavailableError && error.reason === 'interrupted')) throw asReadFailure(error);
  }
  try {
    return await run();
  } catch (error) {
    throw asReadFailure(error);
  }
};

/** `query` for a statement that only reads (see readOnce). */
export const readQuery = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: readonly unknown[] = [],
): Promise<pg.QueryResult<R>> => readOnce(() => query<R>(pool, text, values));

/** The prepared statements' names, by text (see `preparedQuery`). */
const statementNames = new Map<string, string>();

/**
 * The name a text is prepared under: one name per text, whatever the text's length
 * (the server keeps 63 bytes of a name, so names made of the text would collide).
 */
const statementName = (text: string): string => {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `chronicle-${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
    statementNames.set(text, name);
  }
  return name;
};

/**
 * `query` for a statement run on every request: prepared once per connection (the
 * server parses and plans it once, not at every call), under a name made of its text.
 * For texts of which there are few (no values written into them).
 */
export const preparedQuery = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: readonly unknown[],
): Promise<pg.QueryResult<R>> =>
  withConnection(pool, (client) => client.query<R>({ name: statementName(text), text, values: values as unknown[] }));

/** `preparedQuery` for a statement that only reads (see readOnce). */
export const preparedReadQuery = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: readonly unknown[],
): Promise<pg.QueryResult<R>> => readOnce(() => preparedQuery<R>(pool, text, values));

/**
 * Runs `use` inside one transaction: committed when it resolves, rolled back when
 * it throws. `begin` may add to BEGIN what the transaction needs (a `SET LOCAL`).
 */
export const inTransaction = <T>(pool: pg.Pool, use: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> =>
  withConnection(pool, async (client) => {
    await client.query(begin);
    try {
      const result = await use(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
