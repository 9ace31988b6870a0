import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { openStores, resetWebhookFanOutGroup } from '../../src/startup/adapters.js';
import { startChronicle } from '../../src/startup/startChronicle.js';
import { closeStores } from '../../src/startup/Stores.js';
import { eventually } from '../support/events.js';
import { skipLine } from '../support/integration.js';
import { tempDir } from '../support/tempStore.js';
import { startReceiver } from '../unit/webhooks/delivery/support/receiver.js';

/**
 * The production stores and the webhook source as the start-up wires them
 * (`openStores` → `openMongoStores`; `startChronicle` → `openWebhookSource`),
 * from the environment a deployment gives: against real servers only.
 */
const mongoUrl = process.env.MONGODB_URL;
const eventStoreUrl = process.env.EVENTSTORE_URL;

if (mongoUrl) {
  describe('production wiring: the MongoDB stores as openStores picks them', function () {
    this.timeout(60_000);

    it('keeps read models, rate limits, webhook secrets, the outbox and idempotency keys in one MongoDB database', async () => {
      const dir = tempDir('chronicle-wiring-');
      const config = loadConfig({ MONGODB_URL: mongoUrl, MONGODB_DB: `chronicle_test_${randomUUID().slice(0, 8)}`, DATA_DIR: dir.path, RATE_LIMIT_CONCURRENT: '2' });
      const stores = await openStores(config);
      try {
        expect(stores.readModels.kind).to.equal('mongodb');
        expect(stores.webhookOutbox.kind).to.equal('mongodb');
        expect(stores.eventStore.kind).to.equal('sqlite');
        const now = new Date();
        expect((await stores.rateLimits.consume('key-1', now)).hourly.remaining).to.equal(999);
        const [one, two, three] = [await stores.rateLimits.acquire('key-1'), await stores.rateLimits.acquire('key-1'), await stores.rateLimits.acquire('key-1')];
        expect([one !== null, two !== null, three !== null]).to.deep.equal([true, true, false]);
        await one!();
        expect(await stores.rateLimits.acquire('key-1')).to.be.a('function');
        await stores.readModels.checkpoints.save('wiring', '42', 'event-42');
        expect(await stores.readModels.checkpoints.load('wiring')).to.equal('42');
        expect(await stores.readModels.checkpoints.loadEventId?.('wiring')).to.equal('event-42');
        expect(await stores.webhookOutbox.loadFanOut('wiring')).to.deep.equal({ position: null, subscriptions: [] });
      } finally {
        const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
        if (stores.readModels instanceof MongoReadModelStore) await stores.readModels.dropDatabase();
        await closeStores(stores);
        dir.dispose();
      }
    });
  });
} else {
  skipLine('production wiring: MongoDB stores (openStores)', 'MONGODB_URL');
}

if (mongoUrl && eventStoreUrl) {
  describe('production wiring: a server on EventStoreDB and MongoDB as startChronicle wires it', function () {
    this.timeout(120_000);

    it('delivers a webhook through the persistent subscription group into MongoDB’s outbox, and stops within the bound', async () => {
      // The group is the deployment's own (one per log): it starts again from the log's start for this database's empty outbox.
      await resetWebhookFanOutGroup(eventStoreUrl);
      const receiver = await startReceiver();
      const dir = tempDir('chronicle-wiring-');
      const database = `chronicle_test_${randomUUID().slice(0, 8)}`;
      const config = loadConfig({
        EVENTSTORE_URL: eventStoreUrl,
        MONGODB_URL: mongoUrl,
        MONGODB_DB: database,
        DATA_DIR: dir.path,
        PORT: '0',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_DELAYS_MS: '200',
      });
      const chronicle = await startChronicle(config, createLogger('warn'));
      try {
        const call = (path: string, body: unknown) =>
          fetch(`http://127.0.0.1:${chronicle.port}${path}`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${chronicle.demo!.key}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          });
        expect((await call('/webhooks/subscribe', { event: 'contact.created', target_url: `${receiver.url}/hook` })).status).to.equal(201);
        expect((await call('/contacts', { name: 'Ada', phoneNumber: '+44 20 7946 0200' })).status).to.equal(201);
        await eventually(() => receiver.requests.some((request) => request.path === '/hook'), 60_000, 100);
        expect(JSON.parse(receiver.requests.find((request) => request.path === '/hook')!.body)).to.nested.include({ 'data.name': 'Ada' });
      } finally {
        const report = await chronicle.close({ timeoutMs: 10_000 });
        expect(report.complete, JSON.stringify(report)).to.equal(true);
        const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
        const cleaner = await MongoReadModelStore.connect(mongoUrl, database);
        await cleaner.dropDatabase();
        await cleaner.close();
        await resetWebhookFanOutGroup(eventStoreUrl);
        await receiver.close();
        dir.dispose();
      }
    });
  });
} else {
  skipLine('production wiring: EventStoreDB and MongoDB (startChronicle)', 'EVENTSTORE_URL and MONGODB_URL');
}
