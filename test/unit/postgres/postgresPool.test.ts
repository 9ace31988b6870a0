import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import type pg from 'pg';
import { StoreUnavailableError } from '../../../src/application/ports/StoreUnavailableError.js';
import { sqlState } from '../../../src/adapters/postgres/postgresErrors.js';
import { checkOut, createPostgresPool, inTransaction, preparedQuery, preparedReadQuery, query, readQuery, withConnection } from '../../../src/adapters/postgres/postgresPool.js';
import { withReadModelTransaction } from '../../../src/adapters/postgres/withReadModelTransaction.js';
import { sleep } from '../../support/events.js';
import { skipLine } from '../../support/integration.js';
import { postgresTestUrl } from '../../support/postgres.js';

/** The server ends `client`'s session (as a restart with `-m fast` ends every one), from another connection. */
const endSessionOf = async (pool: pg.Pool, client: pg.PoolClient): Promise<void> => {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  await pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
  // The server's goodbye arrives while no statement of `client` runs.
  await sleep(300);
};

if (!postgresTestUrl()) {
  skipLine('PostgreSQL pool: connections that break while held', 'POSTGRES_TEST_URL');
} else {
  describe('PostgreSQL pool: a connection whose session ends while it is held', function () {
    this.timeout(20_000);
    let pool: pg.Pool;
    beforeEach(() => {
      pool = createPostgresPool(postgresTestUrl()!, { max: 3, applicationName: 'chronicle-test' });
    });
    afterEach(() => pool.end());

    it('between two statements of a use: the use goes on, the connection is dropped, the process lives', async () => {
      const answer = await withConnection(pool, async (client) => {
        await endSessionOf(pool, client);
        return 'done';
      });
      expect(answer).to.equal('done');
      // The pool holds no broken connection: every statement after it answers.
      const answers = await Promise.all([1, 2, 3].map(async (n) => (await pool.query<{ n: number }>('SELECT $1::int AS n', [n])).rows[0]!.n));
      expect(answers).to.deep.equal([1, 2, 3]);
    });

    it('handed over inside its socket’s handler, the session’s end read with the answer before it: the next holder is told, the process lives', async () => {
      // `pool.query` gives its connection back as its answer is read, and the pool passes it
      // straight to the next `checkOut` waiting; the server's goodbye, read in the same
      // buffer as that answer, is emitted before any code after an `await` could run.
      const victim = createPostgresPool(postgresTestUrl()!, { max: 1, applicationName: 'chronicle-test-handover' });
      try {
        await victim.query('SELECT 1');
        const answered = victim.query('SELECT pg_sleep(0.2) AS slept');
        const held = checkOut(victim);
        // Let the statement leave, then block the event loop while another process ends the
        // session once the answer is in, so that both wait in one buffer.
        await sleep(20);
        const ender = spawnSync(
          process.execPath,
          [
            '-e',
            `const pg = require(${JSON.stringify(createRequire(import.meta.url).resolve('pg'))});
             (async () => {
               const c = new pg.Client(${JSON.stringify(postgresTestUrl())});
               await c.connect();
               await new Promise((r) => setTimeout(r, 1500));
               await c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'chronicle-test-handover'");
               await c.end();
             })().catch((e) => { console.error(e); process.exit(1); });`,
          ],
          { encoding: 'utf8', timeout: 15_000 },
        );
        expect(ender.status, ender.stderr).to.equal(0);
        // The statement was answered before the session ended...
        expect((await answered).rows).to.deep.equal([{ slept: '' }]);
        // ...and its end was told to the connection's next holder, whose next statement fails.
        const connection = await held;
        const next = await connection.client.query('SELECT 1').catch((error: unknown) => error);
        expect(next).to.be.instanceOf(Error);
        connection.done();
        // The broken connection was dropped: the pool serves on.
        expect((await victim.query('SELECT 3 AS three')).rows).to.deep.equal([{ three: 3 }]);
      } finally {
        await victim.end();
      }
    });

    it('inside a transaction: its next statement fails, and nothing else does', async () => {
      const failed = await inTransaction(pool, async (client) => {
        await endSessionOf(pool, client);
        await client.query('SELECT 1');
      }).catch((error: unknown) => error);
      expect(failed).to.be.instanceOf(Error);
      const read = await withReadModelTransaction(pool, async (client) => {
        await endSessionOf(pool, client);
        await client.query('SELECT 1');
      }).catch((error: unknown) => error);
      expect(read).to.be.instanceOf(Error);
      expect((await pool.query('SELECT 1 AS one')).rows).to.deep.equal([{ one: 1 }]);
    });
  });

  describe('PostgreSQL pool: a read whose session the server ends in the middle (a restart)', function () {
    this.timeout(20_000);
    let pool: pg.Pool;
    let admin: pg.Pool;
    beforeEach(() => {
      pool = createPostgresPool(postgresTestUrl()!, { max: 2, applicationName: 'chronicle-test-reads' });
      admin = createPostgresPool(postgresTestUrl()!, { max: 1, applicationName: 'chronicle-test-admin' });
    });
    afterEach(async () => {
      await pool.end();
      await admin.end();
    });

    /** The sessions ended so far (one being ended may still be listed as active for a moment). */
    const ended: number[] = [];
    /** Once a `pg_sleep` of the pool runs in a session not ended yet, ends that session from another connection, as a fast shutdown or a failover does; true when one was ended. */
    const endSleepingSession = async (): Promise<boolean> => {
      for (let tries = 0; tries < 60; tries++) {
        await sleep(50);
        const { rows } = await admin.query<{ pid: number }>(
          `SELECT pid, pg_terminate_backend(pid) AS ended FROM pg_stat_activity
           WHERE application_name = 'chronicle-test-reads' AND query LIKE 'SELECT pg_sleep%' AND state = 'active' AND pid <> ALL($1::int[])`,
          [ended],
        );
        ended.push(...rows.map((row) => row.pid));
        if (rows.length > 0) return true;
      }
      return false;
    };

    /** Runs `statement` and ends its session `times` times while it runs; its outcome (a value, or the error). */
    const endedInTheMiddle = async (statement: () => Promise<unknown>, times: number): Promise<unknown> => {
      const outcome = statement().then(
        (value) => ({ value }),
        (error: unknown) => error,
      );
      for (let n = 0; n < times; n++) expect(await endSleepingSession(), `session ${n + 1} ended`).to.equal(true);
      return outcome;
    };

    it('a read whose session ended runs once more on a new connection; ended again, it fails as busy with Retry-After (nothing was written: the API answers 503)', async () => {
      for (const read of [() => readQuery(pool, 'SELECT pg_sleep(1) AS slept'), () => preparedReadQuery(pool, 'SELECT pg_sleep($1) AS slept', [1])]) {
        // Once: the second run, on a new connection, answers.
        const answered = (await endedInTheMiddle(read, 1)) as { value?: pg.QueryResult };
        expect(answered.value?.rows, String(answered)).to.deep.equal([{ slept: '' }]);
        // Twice: the store is unavailable.
        const failed = await endedInTheMiddle(read, 2);
        expect(failed).to.be.instanceOf(StoreUnavailableError);
        expect(failed).to.include({ reason: 'busy', retryAfterSeconds: 1 });
        // The server's goodbye (57P01), or the socket's end when it came first.
        expect((failed as Error).cause).to.be.instanceOf(Error);
        expect([null, '57P01']).to.include(sqlState((failed as Error).cause));
      }
    });

    it('a statement that may write, whose session ended while it ran, fails as interrupted (its outcome unknown: 503 STORE_INTERRUPTED, never a 500), and is not run again', async () => {
      const interrupted = await endedInTheMiddle(() => query(pool, 'SELECT pg_sleep(5)'), 1);
      expect(interrupted).to.be.instanceOf(StoreUnavailableError);
      expect(interrupted).to.include({ reason: 'interrupted', retryAfterSeconds: 1 });
      expect([null, '57P01']).to.include(sqlState((interrupted as Error).cause));
      const inTx = await endedInTheMiddle(() => inTransaction(pool, (client) => client.query('SELECT pg_sleep(5)')), 1);
      expect(inTx).to.include({ reason: 'interrupted' });
      // The ended sessions' connections were not given back. A statement's own mistake is not the store's unavailability.
      const wrong = await readQuery(pool, 'SELEC 1').catch((error: unknown) => error);
      expect(wrong).not.to.be.instanceOf(StoreUnavailableError);
      expect(sqlState(wrong)).to.equal('42601');
      // And the pool serves on.
      expect((await readQuery<{ one: number }>(pool, 'SELECT 1 AS one')).rows).to.deep.equal([{ one: 1 }]);
    });
  });

  describe('PostgreSQL pool: prepared statements (preparedQuery)', () => {
    it('prepares each text under a name of its own, long texts sharing their beginning included, on one connection', async () => {
      const pool = createPostgresPool(postgresTestUrl()!, { max: 1, applicationName: 'chronicle-test' });
      // The server keeps 63 bytes of a statement's name: texts alike for longer than that must not share one.
      const alike = (n: number) => `SELECT $1::int + ${n} AS n /* ${'a long text that two statements share at the start '.repeat(3)} */`;
      try {
        const run = async (n: number, value: number) => (await preparedQuery<{ n: number }>(pool, alike(n), [value])).rows[0]!.n;
        expect([await run(1, 10), await run(2, 10), await run(1, 20), await run(2, 20)]).to.deep.equal([11, 12, 21, 22]);
      } finally {
        await pool.end();
      }
    });
  });
}
