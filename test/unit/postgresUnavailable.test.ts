import { expect } from 'chai';
import { PostgresEventStore } from '../../src/adapters/postgres/PostgresEventStore.js';
import { PostgresRateLimitCounters } from '../../src/adapters/postgres/PostgresRateLimitCounters.js';
import { PostgresWebhookSecretStore } from '../../src/adapters/postgres/PostgresWebhookSecretStore.js';
import { createPostgresPool } from '../../src/adapters/postgres/postgresPool.js';
import { StoreUnavailableError } from '../../src/application/ports/StoreUnavailableError.js';
import { anEvent, eventually } from '../support/events.js';
import { freePort } from '../support/freePort.js';

describe('PostgreSQL stores when no server answers', function () {
  this.timeout(10_000);

  it('fail appends and writes as busy (503: nothing was sent), and tell subscriptions they are down, retrying', async () => {
    // Nothing listens on this port: every connection is refused.
    const pool = createPostgresPool(`postgres://chronicle@127.0.0.1:${await freePort()}/chronicle`, { max: 2 });
    const store = new PostgresEventStore(pool, { ownsPool: true, pollIntervalMs: 20 });
    const dropped: number[] = [];
    const subscription = store.subscribeToAll({ after: null, handle: async () => undefined, onDropped: (_error, attempt) => void dropped.push(attempt) });
    try {
      const refused = await store.append('s', [anEvent('A')], 'no_stream').catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(StoreUnavailableError);
      expect((refused as StoreUnavailableError).reason).to.equal('busy');
      const secret = await new PostgresWebhookSecretStore(pool).put('sub', 'whsec_x').catch((error: unknown) => error);
      expect(secret).to.be.instanceOf(StoreUnavailableError);
      // The rate-limit count every request makes first (the library's own statements, through the same translation).
      const counters = new PostgresRateLimitCounters(pool, { hourly: 10, daily: 100, concurrent: 2 });
      const counted = await counters.consume('key', new Date()).catch((error: unknown) => error);
      await counters.close();
      expect(counted).to.be.instanceOf(StoreUnavailableError);
      await eventually(() => dropped.length >= 2, 5_000, 10);
      expect(dropped.slice(0, 2)).to.deep.equal([1, 2]);
    } finally {
      await subscription.stop();
      await store.close();
    }
  });
});
