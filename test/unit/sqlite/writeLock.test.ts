import { expect } from 'chai';
import { join } from 'node:path';
import { openSqliteDatabase, type SqliteDatabase } from '../../../src/adapters/sqlite/openSqliteDatabase.js';
import { LockRetry, whenLockFree, whenLockFreeTranslated, withoutLockWait } from '../../../src/adapters/sqlite/writeLock.js';
import { StoreUnavailableError } from '../../../src/application/ports/StoreUnavailableError.js';
import { tempDir } from '../../support/tempStore.js';

/** Two connections on one file, as two processes have; the second holds the write lock when told to. */
const withTwoConnections = async (run: (db: SqliteDatabase, other: SqliteDatabase) => Promise<void>) => {
  const dir = tempDir('chronicle-lock-');
  const db = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
  const other = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
  db.exec('CREATE TABLE IF NOT EXISTS t (n INTEGER PRIMARY KEY)');
  try {
    await run(db, other);
  } finally {
    if (other.inTransaction) other.exec('ROLLBACK');
    db.close();
    other.close();
    dir.dispose();
  }
};
const insert = (db: SqliteDatabase, n: number) => () => db.prepare('INSERT INTO t (n) VALUES (?)').run(n).changes;
const rows = (db: SqliteDatabase) => (db.prepare('SELECT n FROM t ORDER BY n').all() as { n: number }[]).map((row) => row.n);
const busyTimeout = (db: SqliteDatabase) => db.pragma('busy_timeout', { simple: true });
const ticks = async (count: number, ms: number) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setTimeout(resolve, ms));
  return count;
};

describe('writeLock: waiting for a write lock another connection holds, the event loop serving', () => {
  it('withoutLockWait fails at once with SQLITE_BUSY (nothing written), and puts the busy timeout back', async () =>
    withTwoConnections(async (db, other) => {
      other.exec('BEGIN IMMEDIATE');
      let timeoutInside: unknown = null;
      const error = (() => {
        try {
          withoutLockWait(db, () => {
            timeoutInside = busyTimeout(db);
            return insert(db, 1)();
          });
          return null;
        } catch (caught) {
          return caught as { code?: string };
        }
      })();
      expect(error?.code).to.match(/^SQLITE_BUSY/);
      // With no busy timeout SQLite's busy handler is not called: no sleep inside SQLite.
      expect(timeoutInside, 'no sleep inside SQLite').to.equal(0);
      expect(busyTimeout(db)).to.equal(10_000);
      other.exec('ROLLBACK');
      expect(withoutLockWait(db, insert(db, 1))).to.equal(1);
      expect(rows(db)).to.deep.equal([1]);
    }));

  it('withoutLockWait inside another leaves the timeout off until the outer one ends, then puts the real one back', async () =>
    withTwoConnections(async (db) => {
      const seen: unknown[] = [];
      withoutLockWait(db, () => {
        seen.push(busyTimeout(db));
        withoutLockWait(db, () => seen.push(busyTimeout(db)));
        seen.push(busyTimeout(db));
      });
      expect(seen).to.deep.equal([0, 0, 0]);
      expect(busyTimeout(db)).to.equal(10_000);
      // A first use from inside another's write does not take the 0 for the connection's own timeout.
      const fresh = openSqliteDatabase(db.name);
      try {
        withoutLockWait(fresh, () => withoutLockWait(fresh, () => undefined));
        withoutLockWait(fresh, () => undefined);
        expect(busyTimeout(fresh)).to.equal(10_000);
      } finally {
        fresh.close();
      }
    }));

  it('whenLockFree writes once the lock is free, timers firing while it waits', async () =>
    withTwoConnections(async (db, other) => {
      other.exec('BEGIN IMMEDIATE');
      let written = false;
      const write = whenLockFree(db, insert(db, 7)).then((changes) => (written = changes === 1));
      expect(await ticks(4, 5), 'the loop went on').to.equal(4);
      expect(written).to.equal(false);
      other.exec('COMMIT');
      await write;
      expect(written).to.equal(true);
      expect(rows(other)).to.deep.equal([7]);
      expect(busyTimeout(db)).to.equal(10_000);
    }));

  it('gives up after waitMs with SQLITE_BUSY (translated: 503 store busy); another error is thrown at once', async () =>
    withTwoConnections(async (db, other) => {
      other.exec('BEGIN IMMEDIATE');
      const started = performance.now();
      const raw = await whenLockFree(db, insert(db, 1), 40).catch((error: { code?: string }) => error.code);
      expect(raw).to.match(/^SQLITE_BUSY/);
      // Not before the wait was over (how soon after: the retry delays, up to 100 ms).
      expect(performance.now() - started).to.be.at.least(35);
      const translated = await whenLockFreeTranslated(db, insert(db, 1), 20).catch((error: unknown) => error);
      expect(translated).to.be.instanceOf(StoreUnavailableError);
      other.exec('ROLLBACK');
      let tries = 0;
      const failing = await whenLockFree(db, () => {
        tries += 1;
        throw new Error('constraint');
      }).catch((error: Error) => error.message);
      expect([failing, tries]).to.deep.equal(['constraint', 1]);
      expect(rows(db)).to.deep.equal([]);
    }));

  it('LockRetry schedules another try for a busy lock within the wait, and none for anything else or after it', async () => {
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const retry = new LockRetry(30);
    let again = 0;
    expect(retry.retryLater(new Error('disk I/O error'), () => (again += 1))).to.equal(false);
    expect(retry.retryLater(busy, () => (again += 1))).to.equal(true);
    await ticks(1, 10);
    expect(again, 'tried again after the first delay (1 ms)').to.equal(1);
    await ticks(1, 40);
    expect(retry.retryLater(busy, () => (again += 1)), 'the wait is over').to.equal(false);
    // A new batch waits afresh.
    expect(retry.retryLater(busy, () => (again += 1))).to.equal(true);
    retry.cancel();
    await ticks(1, 10);
    expect(again, 'a cancelled try does not run').to.equal(1);
  });
});
