import { StoreUnavailableError } from '../../application/ports/StoreUnavailableError.js';

/** The SQLSTATE of a server error, when `error` is one. */
export const sqlState = (error: unknown): string | null =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) ? error.code : null;

/** Errors that say the server refused the statement before doing anything: nothing was written. */
const BUSY_STATES: ReadonlySet<string> = new Set([
  '55P03', // lock_not_available: the lock was not had within lock_timeout
  '53300', // too_many_connections
  '57P03', // cannot_connect_now: the server is starting or stopping
  '25006', // read_only_sql_transaction: a standby being promoted (a failover) refused a write
]);

/** Errors that say the server has no room: nothing was written. */
const FULL_STATES: ReadonlySet<string> = new Set([
  '53100', // disk_full
  '53200', // out_of_memory
]);

/**
 * The port's error for a server error that says nothing was written and that
 * passes (503 with Retry-After), else the error as it is. A connection lost in the
 * middle of a statement is left as it is: whether it committed is unknown, so no
 * error may say "nothing was written".
 */
export const translatePostgresError = (error: unknown): unknown => {
  const state = sqlState(error);
  if (state !== null && BUSY_STATES.has(state)) return new StoreUnavailableError('busy', 1, { cause: error });
  if (state !== null && FULL_STATES.has(state)) return new StoreUnavailableError('storage_full', 30, { cause: error });
  return error;
};

/**
 * A connection could not be had from the pool (the server is down or refuses,
 * the pool stayed full past its wait): nothing was sent, so nothing was written.
 */
export const connectionUnavailable = (error: unknown): StoreUnavailableError => {
  const translated = translatePostgresError(error);
  return translated instanceof StoreUnavailableError ? translated : new StoreUnavailableError('busy', 1, { cause: error });
};
