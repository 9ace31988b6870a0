import { StoreUnavailableError } from '../../application/ports/StoreUnavailableError.js';

/** The primary result code of a better-sqlite3 error (`SQLITE_FULL`, `SQLITE_BUSY`, …; extended codes keep the prefix). */
const codeOf = (error: unknown): string =>
  error instanceof Error && 'code' in error ? String((error as { code: unknown }).code) : '';

/** SQLITE_BUSY or one of its extended codes: the write lock was taken. */
export const isBusy = (error: unknown): boolean => {
  const code = codeOf(error);
  return code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_');
};

/**
 * The port's error for a driver error that passes: SQLITE_FULL (the disk, or the
 * `max_page_count` quota, is full) and SQLITE_BUSY (the write lock was not free
 * within `busy_timeout`). SQLite rolls the failed statement or transaction back,
 * so nothing of it is stored. Anything else is returned as it is.
 */
export const translateSqliteError = (error: unknown): unknown => {
  const code = codeOf(error);
  if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_FULL_')) return new StoreUnavailableError('storage_full', 30, { cause: error });
  if (isBusy(error)) return new StoreUnavailableError('busy', 1, { cause: error });
  return error;
};
