import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { EventToAppend } from '../../src/application/ports/EventStore.js';
import type { WebhookOutbox } from '../../src/application/ports/WebhookOutbox.js';
import type { EsdbPersistentFanOutSource } from '../../src/adapters/eventstoredb/EsdbPersistentFanOutSource.js';
import type { EventStoreDbEventStore } from '../../src/adapters/eventstoredb/EventStoreDbEventStore.js';
import { openSqliteDatabase } from '../../src/adapters/sqlite/openSqliteDatabase.js';
import { SqliteWebhookOutbox } from '../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import type { MongoReadModelStore } from '../../src/adapters/mongodb/MongoReadModelStore.js';
import { subscriptionChange } from '../../src/features/webhooks/application/subscriptionChange.js';
import type { DerivedWebhookEvent } from '../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { toEnvelope } from '../../src/features/webhookEvents/domain/envelope.js';
import { WebhookFanOut } from '../../src/webhooks/fanOut.js';
import { captureLogger } from '../support/captureLogger.js';
import { eventually, sleep } from '../support/events.js';
import { skipLine } from '../support/integration.js';
import { compareNullablePositions } from '../../src/shared/Position.js';
import { tempDir } from '../support/tempStore.js';
import { contactCreated, webhookSubscribed } from '../unit/webhooks/delivery/support/events.js';
import { contactCreated as legacyContactCreated, contactUpdatedV1 } from '../support/legacyEvents.js';
import { upcastingSource, withUpcasting } from '../../src/application/versioning/UpcastingEventStore.js';
import { STORED_EVENT_TYPES } from '../../src/features/index.js';
import { deriveWebhookEvents, matchesFilters } from '../support/webhookEvents.js';

/**
 * The webhook fan-out fed by the EventStoreDB persistent subscription group
 * (EsdbPersistentFanOutSource) into an outbox. Runs against a real server only.
 * Each test uses a group of its own, created at the log's head (so it does not
 * page through what earlier suites wrote), and deletes it afterwards.
 */
/** An outbox the fan-out fills, with what the tests do to it. */
interface OutboxUnderTest {
  readonly outbox: WebhookOutbox;
  /** A copy of the outbox as it is now, opened as another outbox: a backup, restored. */
  backup(): Promise<OutboxUnderTest>;
  /** Another, empty outbox: a changed MONGODB_DB, an emptied outbox. */
  empty(): Promise<OutboxUnderTest>;
  dispose(): Promise<void>;
}

/** The embedded outbox: a SQLite file (a backup is `VACUUM INTO`). */
const sqliteOutbox = (): OutboxUnderTest => {
  const dir = tempDir('chronicle-esdb-fanout-');
  const opened: ReturnType<typeof openSqliteDatabase>[] = [];
  const open = (file: string): OutboxUnderTest => {
    const db = openSqliteDatabase(join(dir.path, file));
    opened.push(db);
    return {
      outbox: new SqliteWebhookOutbox(db),
      backup: async () => {
        const copy = `backup-${randomUUID()}.sqlite`;
        db.exec(`VACUUM INTO '${join(dir.path, copy)}'`);
        return open(copy);
      },
      empty: async () => open(`empty-${randomUUID()}.sqlite`),
      dispose: async () => {
        for (const each of opened.splice(0)) each.close();
        dir.dispose();
      },
    };
  };
  return open('chronicle.sqlite');
};

/** MongoDB's outbox, as production runs it beside EventStoreDB: a database per test (a backup is a copy of its collections). */
const mongoOutbox = async (url: string): Promise<OutboxUnderTest> => {
  const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
  const { MongoWebhookOutbox } = await import('../../src/adapters/mongodb/MongoWebhookOutbox.js');
  const stores: MongoReadModelStore[] = [];
  const open = async (database: string): Promise<OutboxUnderTest> => {
    const store = await MongoReadModelStore.connect(url, database);
    stores.push(store);
    return {
      outbox: await MongoWebhookOutbox.create(store.database),
      backup: async () => {
        const copy = `chronicle_test_${randomUUID().slice(0, 8)}`;
        for (const { name } of await store.database.listCollections({}, { nameOnly: true }).toArray()) {
          await store.database.collection(name).aggregate([{ $match: {} }, { $out: { db: copy, coll: name } }]).toArray();
        }
        return open(copy);
      },
      empty: () => open(`chronicle_test_${randomUUID().slice(0, 8)}`),
      dispose: async () => {
        for (const each of stores.splice(0)) {
          await each.dropDatabase();
          await each.close();
        }
      },
    };
  };
  return open(`chronicle_test_${randomUUID().slice(0, 8)}`);
};

/** An outbox whose first `failures` batch commits fail (the store is down), whatever its kind. */
const flaky = (outbox: WebhookOutbox, state: { failures: number }): WebhookOutbox =>
  new Proxy(outbox, {
    get(target, key) {
      const value = Reflect.get(target, key, target) as unknown;
      if (key === 'commitFanOut') {
        return async (...args: Parameters<WebhookOutbox['commitFanOut']>) => {
          if (state.failures > 0) {
            state.failures -= 1;
            throw new Error('outbox unavailable');
          }
          return target.commitFanOut(...args);
        };
      }
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });

const eventStoreUrl = process.env.EVENTSTORE_URL;
const mongoUrl = process.env.MONGODB_URL;
const outboxKinds: { readonly name: string; readonly open: () => Promise<OutboxUnderTest> }[] = [
  { name: 'a SQLite outbox', open: async () => sqliteOutbox() },
  ...(mongoUrl ? [{ name: 'MongoDB’s outbox (as production runs it)', open: () => mongoOutbox(mongoUrl) }] : []),
];
if (eventStoreUrl && !mongoUrl) skipLine('Webhook fan-out: EventStoreDB persistent subscription with MongoDB’s outbox', 'MONGODB_URL');
if (eventStoreUrl) {
  for (const kind of outboxKinds) describe(`Webhook fan-out on an EventStoreDB persistent subscription, into ${kind.name}`, function () {
    this.timeout(60_000);
    const url = eventStoreUrl;
    let store: EventStoreDbEventStore;
    let fixture: OutboxUnderTest;
    let outbox: WebhookOutbox;
    let group: string;
    let startFrom: string | null;
    const running: { fanOut: WebhookFanOut<DerivedWebhookEvent>; source: EsdbPersistentFanOutSource }[] = [];
    const logger = captureLogger();

    /** A fan-out reading a new source (its own client) on the test's group, upcast as the composition root wires it. */
    const startFanOut = async (over: WebhookOutbox = outbox) => {
      const { EsdbPersistentFanOutSource } = await import('../../src/adapters/eventstoredb/EsdbPersistentFanOutSource.js');
      const source = EsdbPersistentFanOutSource.connect(url, { group, startFrom, bufferSize: 16, logger });
      const fanOut = new WebhookFanOut<DerivedWebhookEvent>({
        eventStore: store,
        source: upcastingSource(source, withUpcasting(store, STORED_EVENT_TYPES)),
        outbox: over,
        derive: deriveWebhookEvents,
        subscriptionChange,
        matches: matchesFilters,
        toEnvelope,
        logger,
      });
      try {
        await fanOut.start();
      } catch (error) {
        await source.close();
        throw error;
      }
      const entry = { fanOut, source };
      running.push(entry);
      return entry;
    };
    const stopFanOut = async (entry: { fanOut: WebhookFanOut<DerivedWebhookEvent>; source: EsdbPersistentFanOutSource }) => {
      await entry.fanOut.stop();
      await entry.source.close();
      running.splice(running.indexOf(entry), 1);
    };
    /** Whether the fan-out has stored the event at `position` (other writers may have appended after it). */
    const reached = (fanOut: WebhookFanOut<DerivedWebhookEvent>, position: string) =>
      compareNullablePositions(fanOut.position, position) >= 0;
    const append = async (stream: string, event: EventToAppend) => store.append(`${stream}-${randomUUID()}`, [event], 'no_stream');
    const rows = async (subscriptionId: string) =>
      [...(await outbox.listDeliveries(subscriptionId, { page: 1, limit: 100 })).items].reverse();
    const names = async (subscriptionId: string) =>
      (await rows(subscriptionId)).map((row) => (JSON.parse(row.envelope) as { data: { name: string } }).data.name);

    beforeEach(async () => {
      const { EventStoreDbEventStore } = await import('../../src/adapters/eventstoredb/EventStoreDbEventStore.js');
      store = EventStoreDbEventStore.connect(url);
      fixture = await kind.open();
      outbox = fixture.outbox;
      group = `chronicle-test-fan-out-${randomUUID()}`;
      startFrom = await store.headPosition();
      logger.lines.length = 0;
    });

    afterEach(async () => {
      for (const entry of [...running]) await stopFanOut(entry);
      const { EsdbPersistentFanOutSource } = await import('../../src/adapters/eventstoredb/EsdbPersistentFanOutSource.js');
      const cleaner = EsdbPersistentFanOutSource.connect(url, { group });
      await cleaner.deleteGroup();
      await cleaner.close();
      await store.close();
      await fixture.dispose();
    });

    it('creates the group, and enqueues a contact of a subscribed company once, even across a restart', async () => {
      const company = `company-${randomUUID()}`;
      const subscriptionId = randomUUID();
      const first = await startFanOut();
      await append('webhook', webhookSubscribed(subscriptionId, company, 'https://receiver.example/hook'));
      const { position: adaAt } = await append('contact', contactCreated(company, 'Ada'));
      await eventually(async () => (await rows(subscriptionId)).length === 1, 20_000, 50);
      await eventually(() => reached(first.fanOut, adaAt), 20_000, 50);
      expect(logger.lines.some((line) => line.msg === 'webhook fan-out: persistent subscription group created')).to.equal(true);

      // A restart right away: the group's server checkpoint may not cover Ada yet, so
      // Ada can be delivered again; it is skipped by the fan-out's stored position.
      await stopFanOut(first);
      const second = await startFanOut();
      const { position: bobAt } = await append('contact', contactCreated(company, 'Bob'));
      await eventually(() => reached(second.fanOut, bobAt), 20_000, 50);
      await sleep(500); // room for a late duplicate, which must not appear

      expect(await names(subscriptionId)).to.deep.equal(['Ada', 'Bob']);
      const ids = (await rows(subscriptionId)).map((row) => row.eventId);
      expect(new Set(ids).size).to.equal(ids.length);
    });

    it('retries a failed outbox write itself (no nack) and stores the batch once, in order', async () => {
      const company = `company-${randomUUID()}`;
      const subscriptionId = randomUUID();
      // The same outbox, whose first two batch commits fail.
      const failing = { failures: 2 };
      const entry = await startFanOut(flaky(outbox, failing));
      await append('webhook', webhookSubscribed(subscriptionId, company, 'https://receiver.example/hook'));
      await append('contact', contactCreated(company, 'one'));
      const { position: last } = await append('contact', contactCreated(company, 'two'));
      await eventually(() => reached(entry.fanOut, last), 20_000, 50);

      expect(failing.failures).to.equal(0);
      expect(logger.lines.filter((line) => line.msg === 'webhook fan-out batch failed; retrying')).to.have.length(2);
      expect(await names(subscriptionId)).to.deep.equal(['one', 'two']);
    });

    /** Waits until the server has written the group's checkpoint at or past `position` (it does so within ~1 s of the ack). */
    const checkpointReaches = async (position: string) => {
      const { EventStoreDBClient } = await import('@eventstore/db-client');
      const { encodeEsdbPosition } = await import('../../src/adapters/eventstoredb/EventStoreDbEventStore.js');
      const client = EventStoreDBClient.connectionString(url);
      try {
        await eventually(
          async () => {
            const checkpoint = (await client.getPersistentSubscriptionToAllInfo(group)).stats.lastCheckpointedEventPosition;
            return checkpoint !== undefined && compareNullablePositions(encodeEsdbPosition(checkpoint), position) >= 0;
          },
          20_000,
          200,
        );
      } finally {
        await client.dispose();
      }
    };

    it('recreates a group that is ahead of a restored outbox, so the events in between are fanned out', async () => {
      const company = `company-${randomUUID()}`;
      const subscriptionId = randomUUID();
      const first = await startFanOut();
      await append('webhook', webhookSubscribed(subscriptionId, company, 'https://receiver.example/hook'));
      const { position: adaAt } = await append('contact', contactCreated(company, 'Ada'));
      await eventually(() => reached(first.fanOut, adaAt), 20_000, 50);
      // The backup: the outbox as it is now (Ada).
      const backup = await fixture.backup();
      await append('contact', contactCreated(company, 'Bob'));
      const { position: cyAt } = await append('contact', contactCreated(company, 'Cy'));
      await eventually(() => reached(first.fanOut, cyAt), 20_000, 50);
      await stopFanOut(first);
      await checkpointReaches(cyAt);

      // Restored from the backup: the outbox is behind the group's checkpoint.
      {
        const restored = backup.outbox;
        const second = await startFanOut(restored);
        await eventually(() => reached(second.fanOut, cyAt), 20_000, 50);
        const restoredNames = (await restored.listDeliveries(subscriptionId, { page: 1, limit: 10 })).items
          .map((row) => (JSON.parse(row.envelope) as { data: { name: string } }).data.name)
          .reverse();
        expect(restoredNames).to.deep.equal(['Ada', 'Bob', 'Cy']);
        expect(logger.lines.some((line) => /group is ahead of the outbox/.test(line.msg ?? ""))).to.equal(true);
        await stopFanOut(second);
      }
    });

    it('refuses to start on an empty outbox behind the group; after the reset it fans the log out again', async () => {
      const { FanOutGroupAheadError } = await import('../../src/adapters/eventstoredb/EsdbPersistentFanOutSource.js');
      const company = `company-${randomUUID()}`;
      const subscriptionId = randomUUID();
      const first = await startFanOut();
      await append('webhook', webhookSubscribed(subscriptionId, company, 'https://receiver.example/hook'));
      const { position: adaAt } = await append('contact', contactCreated(company, 'Ada'));
      await eventually(() => reached(first.fanOut, adaAt), 20_000, 50);
      await stopFanOut(first);
      await checkpointReaches(adaAt);

      // Another (empty) outbox: a changed MONGODB_DB, an emptied outbox.
      {
        const empty = (await fixture.empty()).outbox;
        const refused = await startFanOut(empty).then(
          () => null,
          (error: unknown) => error,
        );
        expect(refused).to.be.instanceOf(FanOutGroupAheadError);
        // What `chronicle webhooks reset-fan-out` does, then a start.
        const { EsdbPersistentFanOutSource } = await import('../../src/adapters/eventstoredb/EsdbPersistentFanOutSource.js');
        const cli = EsdbPersistentFanOutSource.connect(url, { group });
        expect(await cli.deleteGroup()).to.equal(true);
        await cli.close();
        const again = await startFanOut(empty);
        await eventually(() => reached(again.fanOut, adaAt), 20_000, 50);
        expect((await empty.listDeliveries(subscriptionId, { page: 1, limit: 10 })).total).to.equal(1);
        await stopFanOut(again);
      }
    });

    it('upcasts what the group delivers: a ContactUpdated stored in version 1 goes out with the contact after the change', async () => {
      const company = `company-${randomUUID()}`;
      const subscriptionId = randomUUID();
      const contactId = randomUUID();
      const entry = await startFanOut();
      await append('webhook', webhookSubscribed(subscriptionId, company, 'https://receiver.example/hook', 'contact.updated'));
      await store.append(`contact-${contactId}`, [legacyContactCreated(contactId, company, 'Ada')], 'no_stream');
      const { position } = await store.append(
        `contact-${contactId}`,
        [contactUpdatedV1(contactId, company, { name: 'Ada L' }, { name: 'Ada' }, '2026-01-01T10:05:00.000Z')],
        0,
      );
      await eventually(() => reached(entry.fanOut, position), 20_000, 50);
      expect(await names(subscriptionId)).to.deep.equal(['Ada L']);
    });

    it('lets one consumer in at a time: a second instance stands by', async () => {
      await startFanOut();
      await eventually(
        () => logger.lines.some((line) => line.msg === 'webhook fan-out: consuming the persistent subscription group'),
        20_000,
        50,
      );
      await startFanOut();
      await eventually(
        () => logger.lines.some((line) => line.msg === 'webhook fan-out: another instance consumes the group; standing by'),
        20_000,
        50,
      );
    });
  });
} else {
  skipLine('Webhook fan-out: EventStoreDB persistent subscription', 'EVENTSTORE_URL');
}
