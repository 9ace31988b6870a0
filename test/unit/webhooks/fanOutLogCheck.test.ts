import { expect } from 'chai';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteWebhookOutbox } from '../../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { subscriptionChange } from '../../../src/features/webhooks/application/subscriptionChange.js';
import type { DerivedWebhookEvent } from '../../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { toEnvelope } from '../../../src/features/webhookEvents/domain/envelope.js';
import { WebhookFanOut, type FanOutLogWitness } from '../../../src/webhooks/fanOut.js';
import { FanOutNotOnLogError } from '../../../src/webhooks/FanOutNotOnLogError.js';
import { silentLogger } from '../../../src/application/ports/Logger.js';
import { eventually } from '../../support/events.js';
import { tempDir } from '../../support/tempStore.js';
import { contactCreated } from './delivery/support/events.js';
import { deriveWebhookEvents, matchesFilters } from '../../support/webhookEvents.js';

/**
 * A dispatcher-only process checks its outbox against the log as it starts: an
 * outbox filled from a log that was then put back to an older copy must not
 * resume, or the events appended since, under positions it counts as fanned out,
 * would never reach it. (The outbox is in a file of its own here, as MongoDB's is
 * beside EventStoreDB.)
 */
describe('webhook fan-out: the outbox checked against the log at start', () => {
  let dir: ReturnType<typeof tempDir>;
  let log: SqliteEventStore;
  let outbox: SqliteWebhookOutbox;
  let running: WebhookFanOut<DerivedWebhookEvent> | null;
  const witnessed = new Map<string, { position: string; eventId: string }>();
  const witness: FanOutLogWitness = {
    load: async (name) => witnessed.get(name) ?? null,
    save: async (name, position, eventId) => void witnessed.set(name, { position, eventId }),
  };

  const fanOut = (withWitness = true) =>
    (running = new WebhookFanOut<DerivedWebhookEvent>({
      eventStore: log,
      // A source that acknowledges (as the EventStoreDB group does): every batch is stored.
      source: { subscribeToAll: (options) => log.subscribeToAll(options) },
      ...(withWitness ? { witness } : {}),
      outbox,
      derive: deriveWebhookEvents,
      subscriptionChange,
      matches: matchesFilters,
      toEnvelope,
      logger: silentLogger,
    }));
  const refusal = (f: WebhookFanOut<DerivedWebhookEvent>) => f.start().then(() => null, (error: unknown) => error);

  beforeEach(async () => {
    dir = tempDir('chronicle-fanout-log-');
    log = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    outbox = SqliteWebhookOutbox.open(join(dir.path, 'outbox.sqlite'));
    running = null;
    witnessed.clear();
    for (const name of ['a', 'b', 'c']) await log.append(`contact-${name}`, [contactCreated('company-a', name)], 'no_stream');
  });
  afterEach(async () => {
    await running?.stop();
    await outbox.close();
    await log.close();
    dir.dispose();
  });

  it('keeps the id of each stored batch’s last event beside the outbox, and starts on the log that holds it', async () => {
    const first = fanOut();
    await first.start();
    const head = await log.headPosition();
    await eventually(() => first.position === head, 2_000);
    const [, , last] = await log.readAll();
    expect(witnessed.get('webhook-fan-out')).to.deep.equal({ position: last!.position, eventId: last!.id });
    await first.stop();
    await fanOut().start();
  });

  it('refuses an outbox that holds the log further than it reaches (a log restored from an older backup)', async () => {
    await outbox.commitFanOut('webhook-fan-out', { position: '999999', subscriptions: [], deliveries: [] }, new Date());
    const refused = await refusal(fanOut(false));
    expect(refused).to.be.instanceOf(FanOutNotOnLogError);
    expect((refused as Error).message).to.contain('holds the log up to position 999999').and.to.contain(`it ends at position ${await log.headPosition()}`);
    expect((refused as Error).message).to.contain('restore the webhook outbox');
  });

  it('refuses an outbox whose last event is not the log’s event at that position (a restored log that took new events since)', async () => {
    const [, second] = await log.readAll();
    await outbox.commitFanOut('webhook-fan-out', { position: second!.position, subscriptions: [], deliveries: [] }, new Date());
    witnessed.set('webhook-fan-out', { position: second!.position, eventId: 'an-event-of-the-log-before-the-restore' });
    const refused = await refusal(fanOut());
    expect(refused).to.be.instanceOf(FanOutNotOnLogError);
    expect((refused as Error).message).to.contain(`event ${second!.id} is there`);
  });
});
