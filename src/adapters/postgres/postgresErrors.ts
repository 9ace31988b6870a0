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
  '40001', // serialization_failure: the transaction was rolled back
  '40P01', // deadlock_detected: the transaction was rolled back
]);

/** Errors that say the server has no room: nothing was written. */
const FULL_STATES: ReadonlySet<string> = new Set([
  '53100', // disk_full
  '53200', // out_of_memory
]);

/** Node's errors of a socket that failed, as pg passes them on. */
const SOCKET_FAILURES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNREFUSED', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH']);

/** pg's own errors for a connection that ended or failed under a client (they carry no code). */
const PG_CONNECTION_FAILURE = /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable)/;

/**
 * A failure of the connection itself, not of the statement: the socket failed or ended (pg's
 * and Node's errors for it), or the server ended the session (SQLSTATE classes 08 and 57P: a
 * restart, an administrator, a failover), whose end may reach the connection only after the
 * statement failed. A statement that met one may have committed or not: nothing says.
 * Anything else (a statement's own error, an error of the caller's code) is not one.
 */
export const breaksConnection = (error: unknown): boolean => {
  if (!(error instanceof Error) || error instanceof StoreUnavailableError) return false;
  const code = (error as { code?: unknown }).code;
  // Before the SQLSTATE: EPIPE is five capitals too.
  if (typeof code === 'string' && SOCKET_FAILURES.has(code)) return true;
  const state = sqlState(error);
  if (state !== null) return state.startsWith('08') || state.startsWith('57P');
  return PG_CONNECTION_FAILURE.test(error.message);
};

/**
 * The error of a write whose connection broke while it ran (see breaksConnection): whether it
 * was stored is unknown, so it is `interrupted` (503 STORE_INTERRUPTED), never a 500.
 */
export const interruptedWrite = (error: unknown): unknown =>
  breaksConnection(error) ? new StoreUnavailableError('interrupted', 1, { cause: error }) : error;

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
