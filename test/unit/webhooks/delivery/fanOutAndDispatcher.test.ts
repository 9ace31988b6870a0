import { expect } from 'chai';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteWebhookOutbox } from '../../../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { SqliteWebhookSecretStore } from '../../../../src/adapters/sqlite/SqliteWebhookSecretStore.js';
import { createDeliveryAgent, type DeliveryAgent } from '../../../../src/webhooks/deliveryAgent.js';
import { subscriptionChange } from '../../../../src/features/webhooks/application/subscriptionChange.js';
import type { DerivedWebhookEvent } from '../../../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { WebhookDispatcher } from '../../../../src/webhooks/dispatcher.js';
import { unsubscribeGone } from '../../../../src/features/webhooks/application/dispatcherUnsubscribe.js';
import { toEnvelope } from '../../../../src/features/webhookEvents/domain/envelope.js';
import { WebhookFanOut } from '../../../../src/webhooks/fanOut.js';
import { isRefusedAddress } from '../../../../src/webhooks/targetUrlGuard.js';
import { newId } from '../../../../src/shared/ids.js';
import { systemClock } from '../../../../src/shared/Clock.js';
import { captureLogger } from '../../../support/captureLogger.js';
import { eventually, sleep } from '../../../support/events.js';
import { tempDir } from '../../../support/tempStore.js';
import { aSecret, contactCreated, webhookSubscribed } from './support/events.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { deriveWebhookEvents, matchesFilters } from '../../../support/webhookEvents.js';

const A = 'company-a';

describe('Webhook fan-out and dispatcher together', function () {
  this.timeout(10_000);
  let dir: ReturnType<typeof tempDir>;
  let eventStore: SqliteEventStore;
  let outbox: SqliteWebhookOutbox;
  let secrets: SqliteWebhookSecretStore;
  let receiver: Receiver;
  let agent: DeliveryAgent;
  let fanOut: WebhookFanOut<DerivedWebhookEvent>;
  let dispatcher: WebhookDispatcher;
  const logger = captureLogger();

  beforeEach(async () => {
    dir = tempDir('chronicle-webhooks-');
    eventStore = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    outbox = new SqliteWebhookOutbox(eventStore.db);
    secrets = new SqliteWebhookSecretStore(eventStore.db);
    receiver = await startReceiver();
    agent = createDeliveryAgent({ allowPrivateTargets: true, isRefusedAddress });
    dispatcher = new WebhookDispatcher({
      outbox,
      send: agent.send,
      secrets,
      unsubscribe: unsubscribeGone({ eventStore, newId, clock: systemClock, secrets }),
      timeoutMs: 1000,
      retryDelaysMs: [20, 40, 80],
      logger,
    });
    fanOut = new WebhookFanOut<DerivedWebhookEvent>({
      eventStore,
      outbox,
      derive: deriveWebhookEvents,
      subscriptionChange,
      matches: matchesFilters,
      toEnvelope,
      logger,
      onEnqueued: () => dispatcher.wake(),
    });
    dispatcher.start();
    await fanOut.start();
  });
  afterEach(async () => {
    await fanOut.stop();
    await dispatcher.stop();
    agent.close();
    await receiver.close();
    await eventStore.close();
    dir.dispose();
  });

  const subscribe = async (id: string, path: string) => {
    await secrets.put(id, aSecret());
    await eventStore.append(`webhook-${id}`, [webhookSubscribed(id, A, `${receiver.url}${path}`)], 'no_stream');
  };

  it('delivers what the log derives, as the specification’s envelope', async () => {
    await subscribe('11111111-1111-4111-8111-111111111111', '/hook');
    await eventStore.append('contact-1', [contactCreated(A, 'Ada Lovelace', ['vip'])], 'no_stream');
    await eventually(() => receiver.requests.length === 1);
    const body = JSON.parse(receiver.requests[0]!.body) as Record<string, unknown>;
    expect(body).to.have.keys(['event', 'timestamp', 'data', 'metadata']);
    expect(body).to.deep.include({ event: 'contact.created' });
    expect(body.metadata).to.deep.include({ companyId: A, eventId: receiver.requests[0]!.headers['webhook-id'], source: 'api' });
    expect(body.data).to.deep.include({ name: 'Ada Lovelace', tags: ['vip'] });
  });

  it('on 410 appends WebhookUnsubscribed (gone) through the domain, deletes the secret, and nothing more is sent', async () => {
    const id = '22222222-2222-4222-8222-222222222222';
    receiver.on('/gone', (_request, res) => res.writeHead(410).end());
    await subscribe(id, '/gone');
    await eventStore.append('contact-1', [contactCreated(A, 'one')], 'no_stream');
    await eventually(async () => (await eventStore.readStream(`webhook-${id}`)).length === 2);
    const [, unsubscribed] = await eventStore.readStream(`webhook-${id}`);
    expect(unsubscribed).to.deep.include({ type: 'WebhookUnsubscribed' });
    expect(unsubscribed!.data).to.deep.include({ subscriptionId: id, companyId: A, reason: 'gone' });
    expect(unsubscribed!.metadata).to.deep.include({ source: 'system', companyId: A });
    expect(await secrets.get(id)).to.equal(null);

    await eventStore.append('contact-2', [contactCreated(A, 'two')], 'no_stream');
    const head = await eventStore.headPosition();
    await eventually(() => fanOut.position === head);
    await sleep(100);
    expect(receiver.requests).to.have.length(1);
    expect((await outbox.listDeliveries(id, { page: 1, limit: 10 })).total).to.equal(1);
    // A second 410 (after a restart, say) finds the subscription ended: no error, no second event.
    await unsubscribeGone({ eventStore, newId, clock: systemClock, secrets })(id, A);
    expect(await eventStore.readStream(`webhook-${id}`)).to.have.length(2);
  });
});
