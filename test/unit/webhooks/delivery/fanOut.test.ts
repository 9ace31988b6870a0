import { expect } from 'chai';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteWebhookOutbox } from '../../../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { SqliteCheckpointStore } from '../../../../src/adapters/sqlite/SqliteCheckpointStore.js';
import { MemoryReadModelStore } from '../../../../src/adapters/memory/MemoryReadModelStore.js';
import { ProjectionRunner } from '../../../../src/application/subscriptions/ProjectionRunner.js';
import type { EventStore, EventToAppend, RecordedEvent, SubscribeOptions } from '../../../../src/application/ports/EventStore.js';
import type { Delivery } from '../../../../src/application/ports/WebhookOutbox.js';
import { subscriptionChange } from '../../../../src/features/webhooks/application/subscriptionChange.js';
import type { DerivedWebhookEvent } from '../../../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { toEnvelope } from '../../../../src/features/webhookEvents/domain/envelope.js';
import { CHECKPOINT_ONLY_EVERY_MS, WEBHOOK_FAN_OUT_CHECKPOINT, WebhookFanOut } from '../../../../src/webhooks/fanOut.js';
import { captureLogger } from '../../../support/captureLogger.js';
import { eventually, sleep } from '../../../support/events.js';
import { tempDir } from '../../../support/tempStore.js';
import { contactCreated, webhookSubscribed, webhookUnsubscribed } from './support/events.js';
import { deriveWebhookEvents, matchesFilters, webhookCompanyOf } from '../../../support/webhookEvents.js';

const A = 'company-a';
const B = 'company-b';

describe('Webhook fan-out', function () {
  this.timeout(10_000);
  let dir: ReturnType<typeof tempDir>;
  let eventStore: SqliteEventStore;
  let outbox: SqliteWebhookOutbox;
  let fanOut: WebhookFanOut<DerivedWebhookEvent> | null;
  const logger = captureLogger();
  let n = 0;

  /** The fan-out with the real mapping, envelope and filters; `derive` can be spied on. */
  const newFanOut = (
    options: {
      store?: Pick<EventStore, 'subscribeToAll'>;
      derive?: (e: RecordedEvent) => DerivedWebhookEvent[];
      companyOf?: (e: RecordedEvent) => string | null;
      onEnqueued?: () => void;
    } = {},
  ) =>
    new WebhookFanOut<DerivedWebhookEvent>({
      eventStore: options.store ?? eventStore,
      outbox,
      derive: options.derive ?? deriveWebhookEvents,
      subscriptionChange,
      ...(options.companyOf ? { companyOf: options.companyOf } : {}),
      matches: matchesFilters,
      toEnvelope,
      logger,
      ...(options.onEnqueued ? { onEnqueued: options.onEnqueued } : {}),
    });

  const append = async (...events: EventToAppend[]) => {
    for (const event of events) await eventStore.append(`s-${n++}`, [event], 'no_stream');
  };
  const caughtUp = async (f: WebhookFanOut<DerivedWebhookEvent>) => {
    const head = await eventStore.headPosition();
    await eventually(() => f.position === head);
  };
  const rows = async (subscriptionId: string): Promise<Delivery[]> =>
    [...(await outbox.listDeliveries(subscriptionId, { page: 1, limit: 1000 })).items].reverse();
  const names = async (subscriptionId: string) =>
    (await rows(subscriptionId)).map((r) => (JSON.parse(r.envelope) as { data: { name: string } }).data.name);

  beforeEach(() => {
    dir = tempDir('chronicle-fanout-');
    eventStore = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    outbox = new SqliteWebhookOutbox(eventStore.db);
    fanOut = null;
    logger.lines.length = 0;
  });
  afterEach(async () => {
    await fanOut?.stop();
    await eventStore.close();
    dir.dispose();
  });

  describe('given subscriptions in the log', () => {
    it('enqueues each derived event for the company’s subscriptions to its type, only after their WebhookSubscribed', async () => {
      await append(contactCreated(A, 'before'), webhookSubscribed('s1', A, 'https://a.example/1'));
      await append(contactCreated(A, 'first'), contactCreated(B, 'other company'));
      await append(webhookSubscribed('s2', A, 'https://a.example/2'), webhookSubscribed('s3', A, 'https://a.example/3', 'contact.updated'));
      await append(contactCreated(A, 'second'));
      fanOut = newFanOut();
      await fanOut.start();
      await caughtUp(fanOut);

      expect(await names('s1')).to.deep.equal(['first', 'second']);
      expect(await names('s2')).to.deep.equal(['second']);
      expect(await names('s3')).to.deep.equal([]);
    });

    it('stores the envelope of the derived event, its id, type, position and time', async () => {
      await append(webhookSubscribed('s1', A, 'https://a.example/1'), contactCreated(A, 'Ada', ['vip']));
      fanOut = newFanOut();
      await fanOut.start();
      await caughtUp(fanOut);
      const [stored] = await eventStore.readAll({ after: (await eventStore.readAll())[0]!.position });
      const [derived] = deriveWebhookEvents(stored!);
      const [row] = await rows('s1');
      expect(row).to.deep.include({
        subscriptionId: 's1',
        companyId: A,
        eventId: derived!.eventId,
        eventType: 'contact.created',
        position: stored!.position,
        ordinal: 0,
        occurredAt: derived!.timestamp,
        state: 'pending',
      });
      expect(JSON.parse(row!.envelope)).to.deep.equal(JSON.parse(JSON.stringify(toEnvelope(derived!))));
    });

    it('derives nothing from the events of a company without subscriptions (companyOf), and the same rows as without it', async () => {
      await append(webhookSubscribed('s1', A, 'https://a.example/1'), contactCreated(A, 'one'), contactCreated(B, 'unheard'));
      await append(webhookSubscribed('s2', B, 'https://b.example/2'), contactCreated(B, 'heard'), contactCreated(A, 'two'));
      const derived: string[] = [];
      fanOut = newFanOut({
        companyOf: webhookCompanyOf,
        derive: (event) => {
          derived.push((event.data as { name?: string }).name ?? event.type);
          return deriveWebhookEvents(event);
        },
      });
      await fanOut.start();
      await caughtUp(fanOut);
      // Subscription events have no company to read: they are derived (to nothing), as before.
      expect(derived).to.deep.equal(['WebhookSubscribed', 'one', 'WebhookSubscribed', 'heard', 'two']);
      expect(await names('s1')).to.deep.equal(['one', 'two']);
      expect(await names('s2')).to.deep.equal(['heard']);
    });

    it('lets through only what a subscription’s filters match', async () => {
      await append(webhookSubscribed('vip', A, 'https://a.example/v', 'contact.created', { tags: ['vip'] }));
      await append(contactCreated(A, 'tagged', ['vip', 'x']), contactCreated(A, 'other', ['x']), contactCreated(A, 'none'));
      fanOut = newFanOut();
      await fanOut.start();
      await caughtUp(fanOut);
      expect(await names('vip')).to.deep.equal(['tagged']);
    });

    it('stops at a WebhookUnsubscribed, and its rows still pending then are failed (unsubscribed)', async () => {
      await append(webhookSubscribed('s1', A, 'https://a.example/1'), contactCreated(A, 'kept'));
      await append(webhookUnsubscribed('s1', A), contactCreated(A, 'after'));
      fanOut = newFanOut();
      await fanOut.start();
      await caughtUp(fanOut);
      const [row, ...more] = await rows('s1');
      expect(more).to.deep.equal([]);
      expect(row).to.include({ state: 'failed', failureReason: 'unsubscribed' });
    });

    it('follows live appends and tells the dispatcher after each batch that enqueued rows', async () => {
      let woken = 0;
      fanOut = newFanOut({ onEnqueued: () => woken++ });
      await fanOut.start();
      await append(webhookSubscribed('s1', A, 'https://a.example/1'));
      await caughtUp(fanOut);
      expect(woken).to.equal(0);
      await append(contactCreated(A, 'live'));
      await eventually(async () => (await rows('s1')).length === 1);
      await eventually(() => woken === 1);
    });

    it('ignores (and logs) a subscription event that does not decode, and goes on', async () => {
      await append(
        { ...webhookSubscribed('bad', A, 'https://a.example/b'), data: { subscriptionId: 'bad' } },
        webhookSubscribed('s1', A, 'https://a.example/1'),
        contactCreated(A, 'x'),
      );
      fanOut = newFanOut();
      await fanOut.start();
      await caughtUp(fanOut);
      expect(await names('s1')).to.deep.equal(['x']);
      expect(logger.lines.some((l) => l.level === 'error' && /does not decode/.test(l.msg ?? ''))).to.equal(true);
    });
  });

  describe('given a source that offers events again', () => {
    it('ignores a batch it has already stored and never moves its checkpoint backwards', async () => {
      await append(webhookSubscribed('s1', A, 'https://a.example/1'), contactCreated(A, 'one'), contactCreated(A, 'two'));
      fanOut = newFanOut();
      await fanOut.start();
      await caughtUp(fanOut);
      const checkpoint = fanOut.position;
      const old = await eventStore.readAll({ after: null, maxCount: 2 });
      await fanOut.handle(old);
      expect(fanOut.position).to.equal(checkpoint);
      expect((await outbox.loadFanOut('webhook-fan-out')).position).to.equal(checkpoint);
      expect(await names('s1')).to.deep.equal(['one', 'two']);
    });
  });

  describe('given a restart', () => {
    const storedPosition = async () => (await outbox.loadFanOut(WEBHOOK_FAN_OUT_CHECKPOINT)).position;

    it('stores a batch with nothing but its position at most once a second, and at stop', async () => {
      await append(webhookSubscribed('s1', A, 'https://a.example/1'));
      fanOut = newFanOut();
      await fanOut.start();
      await caughtUp(fanOut);
      const subscribed = await storedPosition();
      expect(subscribed).to.equal(fanOut.position);

      await append(contactCreated(B, 'no subscription'));
      await caughtUp(fanOut);
      expect(await storedPosition()).to.equal(subscribed);

      await append(contactCreated(A, 'for s1'));
      await caughtUp(fanOut);
      expect(await storedPosition()).to.equal(fanOut.position);

      await sleep(CHECKPOINT_ONLY_EVERY_MS + 50);
      await append(contactCreated(B, 'a second later'));
      await caughtUp(fanOut);
      expect(await storedPosition()).to.equal(fanOut.position);

      await append(contactCreated(B, 'just after'));
      await caughtUp(fanOut);
      const handled = fanOut.position;
      expect(await storedPosition()).not.to.equal(handled);
      await fanOut.stop();
      expect(await storedPosition()).to.equal(handled);
    });

    it('after a crash that lost such a checkpoint, reads those events again and enqueues nothing twice', async () => {
      await append(webhookSubscribed('s1', A, 'https://a.example/1'), contactCreated(A, 'one'));
      fanOut = newFanOut();
      await fanOut.start();
      await caughtUp(fanOut);
      const checkpoint = eventStore.db.prepare('SELECT position FROM checkpoints WHERE name = ?').pluck().get(WEBHOOK_FAN_OUT_CHECKPOINT);
      await append(contactCreated(B, 'no subscription'), contactCreated(B, 'none either'));
      await caughtUp(fanOut);
      await fanOut.stop();
      // As if killed before the stop: the checkpoint of the last batch with rows.
      eventStore.db.prepare('UPDATE checkpoints SET position = ? WHERE name = ?').run(checkpoint, WEBHOOK_FAN_OUT_CHECKPOINT);

      await append(contactCreated(A, 'two'));
      const seen: string[] = [];
      fanOut = newFanOut({
        derive: (event) => {
          seen.push((event.data as { name: string }).name);
          return deriveWebhookEvents(event);
        },
      });
      await fanOut.start();
      await caughtUp(fanOut);
      expect(seen).to.deep.equal(['no subscription', 'none either', 'two']);
      expect(await names('s1')).to.deep.equal(['one', 'two']);
    });

    it('stores every checkpoint when its source acknowledges what it handled (an injected source)', async () => {
      await append(webhookSubscribed('s1', A, 'https://a.example/1'));
      fanOut = new WebhookFanOut<DerivedWebhookEvent>({
        eventStore,
        source: { subscribeToAll: (options) => eventStore.subscribeToAll(options) },
        outbox,
        derive: deriveWebhookEvents,
        subscriptionChange,
        matches: matchesFilters,
        toEnvelope,
        logger,
      });
      await fanOut.start();
      await caughtUp(fanOut);
      await append(contactCreated(B, 'no subscription'));
      await caughtUp(fanOut);
      expect(await storedPosition()).to.equal(fanOut.position);
    });

    it('resumes at its checkpoint with its stored view of the subscriptions, reading no event twice', async () => {
      await append(webhookSubscribed('s1', A, 'https://a.example/1'), contactCreated(A, 'one'), contactCreated(A, 'two'));
      fanOut = newFanOut();
      await fanOut.start();
      await caughtUp(fanOut);
      const checkpoint = fanOut.position;
      await fanOut.stop();
      await append(contactCreated(A, 'three'));

      const seen: string[] = [];
      let from: string | null | undefined;
      const spyStore: Pick<EventStore, 'subscribeToAll'> = {
        subscribeToAll: (options: SubscribeOptions) => {
          from = options.after;
          return eventStore.subscribeToAll(options);
        },
      };
      fanOut = newFanOut({
        store: spyStore,
        derive: (event) => {
          seen.push(event.id);
          return deriveWebhookEvents(event);
        },
      });
      await fanOut.start();
      await caughtUp(fanOut);
      expect(from).to.equal(checkpoint);
      expect(seen).to.have.length(1);
      expect(await names('s1')).to.deep.equal(['one', 'two', 'three']);
    });

    it('stores a batch’s rows, subscription view and checkpoint in one transaction: all or nothing', async () => {
      eventStore.db.exec(
        `CREATE TEMP TRIGGER refuse_checkpoint BEFORE INSERT ON main.checkpoints WHEN NEW.name = '${WEBHOOK_FAN_OUT_CHECKPOINT}'
         BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;`,
      );
      await append(webhookSubscribed('s1', A, 'https://a.example/1'), contactCreated(A, 'one'));
      fanOut = newFanOut();
      await fanOut.start();
      await eventually(() => logger.lines.some((l) => l.msg === 'webhook fan-out batch failed; retrying'));
      const count = (table: string) => (eventStore.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
      expect([count('webhook_outbox'), count('webhook_fan_out_subscriptions'), count('checkpoints')]).to.deep.equal([0, 0, 0]);

      eventStore.db.exec('DROP TRIGGER refuse_checkpoint');
      await caughtUp(fanOut);
      expect(await names('s1')).to.deep.equal(['one']);
      expect(count('webhook_fan_out_subscriptions')).to.equal(1);
    });

    it('is not touched by a rebuild of the read models (no webhook is sent again)', async () => {
      await append(webhookSubscribed('s1', A, 'https://a.example/1'), contactCreated(A, 'one'));
      fanOut = newFanOut();
      await fanOut.start();
      await caughtUp(fanOut);
      const before = { position: fanOut.position, rows: await rows('s1') };

      const checkpoints = new SqliteCheckpointStore(eventStore.db);
      await checkpoints.reset('read-models');
      const runner = new ProjectionRunner({ eventStore, readModels: new MemoryReadModelStore(), collections: [], logger });
      await runner.start();
      await runner.stop();
      await sleep(50);
      expect(await checkpoints.load(WEBHOOK_FAN_OUT_CHECKPOINT)).to.equal(before.position);
      expect(await rows('s1')).to.deep.equal(before.rows);
    });
  });
});
