import { expect } from 'chai';
import { openPostgresStores, countersPoolSize } from '../../../src/adapters/postgres/openPostgresStores.js';
import { createPostgresPool } from '../../../src/adapters/postgres/postgresPool.js';
import { closeStores } from '../../../src/startup/Stores.js';
import { skipLine } from '../../support/integration.js';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../../support/postgres.js';
import { eventually } from '../../support/events.js';

if (!postgresTestUrl()) {
  skipLine("PostgreSQL: the rate limits' counters on connections of asynchronous commits", 'POSTGRES_TEST_URL');
} else {
  describe("PostgreSQL: the rate limits' counters on a pool whose commits do not wait for the disk", function () {
    this.timeout(30_000);
    let database: FreshDatabase;
    before(async () => (database = await freshPostgresDatabase()));
    after(() => database.drop());

    it('a pool told so commits asynchronously; every other pool waits for the disk', async () => {
      const counters = createPostgresPool(database.url, { max: 1, asynchronousCommit: true });
      const durable = createPostgresPool(database.url, { max: 1 });
      try {
        expect((await counters.query('SHOW synchronous_commit')).rows[0]).to.deep.equal({ synchronous_commit: 'off' });
        expect((await durable.query('SHOW synchronous_commit')).rows[0]).to.deep.equal({ synchronous_commit: 'on' });
      } finally {
        await counters.end();
        await durable.end();
      }
    });

    it("counts a request on the counters' own connections (half of POSTGRES_POOL_SIZE, at least 2), closed with the stores", async () => {
      const stores = await openPostgresStores(database.url, { poolSize: 4, rateLimits: { hourly: 10, daily: 100, concurrent: 2 } });
      const sessions = async () => {
        const probe = createPostgresPool(database.url, { max: 1 });
        try {
          const { rows } = await probe.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'chronicle-counters'",
          );
          return Number(rows[0]!.n);
        } finally {
          await probe.end();
        }
      };
      try {
        const decision = await stores.rateLimits.consume('key-1', new Date());
        expect(decision.hourly.remaining).to.equal(9);
        expect(await sessions()).to.be.within(1, countersPoolSize(4));
        expect(countersPoolSize(4)).to.equal(2);
        expect(countersPoolSize(10)).to.equal(5);
      } finally {
        await closeStores(stores);
      }
      // A closed connection's backend leaves pg_stat_activity once it has exited, a moment after the client hung up.
      await eventually(async () => (await sessions()) === 0, 5_000, 50).catch(() => undefined);
      expect(await sessions()).to.equal(0);
    });
  });
}
