import { setTimeout as sleep } from 'node:timers/promises';
import type { SqliteDatabase } from './openSqliteDatabase.js';
import { isBusy, translateSqliteError } from './sqliteErrors.js';

/**
 * Waiting for a SQLite file's write lock without stopping the event loop.
 *
 * Another process on the file (an API worker of `API_WORKERS`, the projector and
 * dispatcher beside them, the CLI) may hold its write lock. SQLite's busy handler
 * waits for it by sleeping (1 ms, then 2, 5, 10 ms and more), inside the call,
 * with the event loop stopped and every request and batch of the process frozen
 * with it. Here a write is tried with the busy timeout off, and when the lock is
 * taken it is tried again after the same delays while the loop serves. The
 * delays are SQLite's own, so that a connection still waiting inside SQLite gets
 * the lock as often as it did: a short fixed one would try far more often.
 */

const LOCK_RETRY_DELAYS_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100] as const;

/** How long a write keeps trying before it fails with SQLITE_BUSY: the connections' busy timeout. */
const LOCK_WAIT_MS = 10_000;

/** The delay before the next try, after `tries` tries that found the lock taken. */
const lockRetryDelay = (tries: number): number => LOCK_RETRY_DELAYS_MS[Math.min(tries, LOCK_RETRY_DELAYS_MS.length - 1)]!;

/** Each connection's own busy timeout, as the PRAGMA that puts it back. */
const restoreStatements = new WeakMap<SqliteDatabase, string>();
/** The connections whose busy timeout `withoutLockWait` has off right now. */
const turnedOff = new WeakSet<SqliteDatabase>();

/**
 * Runs `write` with the connection's busy timeout off: a write lock another
 * connection holds fails it at once with SQLITE_BUSY (nothing written), instead of
 * a sleep inside SQLite. The timeout is put back after, for every other use of the
 * connection. (`exec`, not statements prepared once: SQLite sets busy_timeout when
 * the PRAGMA is compiled, so running a prepared one again does nothing.)
 */
export const withoutLockWait = <T>(db: SqliteDatabase, write: () => T): T => {
  // Inside another one's write (the timeout is off already): the outer one puts it back.
  if (turnedOff.has(db)) return write();
  let restore = restoreStatements.get(db);
  if (restore === undefined) {
    restore = `PRAGMA busy_timeout = ${db.pragma('busy_timeout', { simple: true }) as number}`;
    restoreStatements.set(db, restore);
  }
  db.exec('PRAGMA busy_timeout = 0');
  turnedOff.add(db);
  try {
    return write();
  } finally {
    turnedOff.delete(db);
    db.exec(restore);
  }
};

/**
 * Runs `write` (a write transaction, or a statement that writes) once the write
 * lock is free: at once when it is, else again after SQLite's delays, the event
 * loop serving meanwhile. Its SQLITE_BUSY after `waitMs` is thrown, as SQLite's
 * busy timeout would have; any other error at once.
 */
export const whenLockFree = async <T>(db: SqliteDatabase, write: () => T, waitMs = LOCK_WAIT_MS): Promise<T> => {
  const started = Date.now();
  for (let tries = 0; ; tries += 1) {
    try {
      return withoutLockWait(db, write);
    } catch (error) {
      if (!isBusy(error) || Date.now() - started >= waitMs) throw error;
    }
    await sleep(lockRetryDelay(tries));
  }
};

/** `whenLockFree`, with a driver error that passes (disk full, the lock not had) thrown as the port's error (503). */
export const whenLockFreeTranslated = async <T>(db: SqliteDatabase, write: () => T, waitMs = LOCK_WAIT_MS): Promise<T> => {
  try {
    return await whenLockFree(db, write, waitMs);
  } catch (error) {
    throw translateSqliteError(error);
  }
};

/**
 * The lock wait of a group commit (the log's appends, the outbox's attempts): a
 * batch that found the lock taken goes back to the head of its queue, and the
 * flush runs again after the delay, with whatever joined the queue meanwhile.
 */
export class LockRetry {
  private startedAt: number | null = null;
  private tries = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly waitMs = LOCK_WAIT_MS) {}

  /**
   * After a try that failed with `error`: true when the lock was taken and the
   * wait is not over, and `again` is scheduled; false when the batch fails with
   * `error` (anything else, or the lock not had within the wait).
   */
  retryLater(error: unknown, again: () => void): boolean {
    if (!isBusy(error) || Date.now() - (this.startedAt ??= Date.now()) >= this.waitMs) {
      this.succeeded();
      return false;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      again();
    }, lockRetryDelay(this.tries++));
    return true;
  }

  /** The batch was written (or failed for good): the next one that finds the lock taken waits afresh. */
  succeeded(): void {
    this.startedAt = null;
    this.tries = 0;
  }

  /** Drops the scheduled try (closing: the caller flushes what is left itself). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
