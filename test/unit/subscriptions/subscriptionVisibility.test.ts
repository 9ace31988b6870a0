import { expect } from 'chai';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { UnavailableError, type EventStoreDBClient } from '@eventstore/db-client';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteWebhookOutbox } from '../../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { EventStoreDbEventStore } from '../../../src/adapters/eventstoredb/EventStoreDbEventStore.js';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { ProjectionRunner } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { SubscriptionStatus } from '../../../src/application/subscriptions/SubscriptionStatus.js';
import type { EventStore, SubscribeOptions, Subscription } from '../../../src/application/ports/EventStore.js';
import { subscriptionChange } from '../../../src/features/webhooks/application/subscriptionChange.js';
import type { DerivedWebhookEvent } from '../../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { toEnvelope } from '../../../src/features/webhookEvents/domain/envelope.js';
import { WebhookFanOut, type FanOutEventSource } from '../../../src/webhooks/fanOut.js';
import { checkReadiness } from '../../../src/ops/readiness.js';
import { captureLogger } from '../../support/captureLogger.js';
import { anEvent, eventually } from '../../support/events.js';
import { tempDir } from '../../support/tempStore.js';
import { validatorAt } from '../../support/openApi.js';
import { deriveWebhookEvents, matchesFilters } from '../../support/webhookEvents.js';

const grpcError = { message: 'connection refused', code: 14, metadata: { getMap: () => ({}) } } as never;

/** An event store whose subscriptions fail to connect `failures` times, then connect and stay quiet. */
const flakyStore = (failures: number): EventStore & { subscribed: SubscribeOptions[] } => {
  const subscribed: SubscribeOptions[] = [];
  return {
    kind: 'eventstoredb',
    subscribed,
    append: async () => ({ nextRevision: 0, position: '1' }),
    readStream: async () => [],
    readAll: async () => [],
    headPosition: async () => null,
    subscribeToAll(options): Subscription {
      subscribed.push(options);
      let stopped = false;
      void (async () => {
        for (let attempt = 1; attempt <= failures && !stopped; attempt++) {
          options.onDropped?.(new Error(`refused ${attempt}`), attempt);
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        if (!stopped) options.onConnected?.();
      })();
      return { position: null, stop: async () => void (stopped = true) };
    },
    close: async () => undefined,
  };
};

describe('visible subscriptions', () => {
  describe('SubscriptionStatus', () => {
    it('logs every one of the first drops, then every 10th, as errors from the 5th, and the reconnect with how long it was down', () => {
      const logger = captureLogger();
      let now = new Date('2026-01-01T00:00:00.000Z');
      const status = new SubscriptionStatus('read-models', logger, 'the event store', { now: () => now });
      status.connected();
      for (let i = 1; i <= 25; i++) status.dropped(new Error('gone'), 'the event store to accept the subscription again');
      expect(status.snapshot()).to.deep.include({ state: 'reconnecting', failures: 25, lastError: 'gone', waitingFor: 'the event store to accept the subscription again' });
      const drops = logger.lines.filter((line) => /dropped/.test(line.msg ?? ''));
      expect(drops.map((line) => (line.obj as { failures: number }).failures)).to.deep.equal([1, 2, 3, 10, 20]);
      expect(drops.map((line) => line.level)).to.deep.equal(['warn', 'warn', 'warn', 'error', 'error']);
      now = new Date('2026-01-01T00:01:00.000Z');
      status.connected();
      const back = logger.lines[logger.lines.length - 1]!;
      expect(back.msg).to.equal('read-models: subscribed again after 25 failed attempt(s)');
      expect(back.obj).to.include({ failures: 25, downMs: 60_000 });
      expect(status.snapshot()).to.deep.include({ state: 'connected', failures: 0, waitingFor: null, lastError: null });
    });

    it('says what a start waits for', () => {
      const logger = captureLogger();
      const status = new SubscriptionStatus('webhook-fan-out', logger, 'the webhook outbox');
      status.waiting('EventStoreDB to check the persistent subscription group g');
      status.dropped(new Error('unavailable'), 'EventStoreDB to check the persistent subscription group g');
      expect(status.snapshot()).to.deep.include({ state: 'starting', waitingFor: 'EventStoreDB to check the persistent subscription group g', failures: 1 });
      expect(logger.lines.map((line) => line.msg)).to.deep.equal([
        'webhook-fan-out: waiting for EventStoreDB to check the persistent subscription group g',
        'webhook-fan-out: cannot subscribe yet (failure 1); retrying; waiting for EventStoreDB to check the persistent subscription group g',
      ]);
    });
  });

  describe('the read models’ subscription (ProjectionRunner)', () => {
    it('logs the failures of a subscription the start waits for, and reports it connected once it is', async () => {
      const logger = captureLogger();
      const eventStore = flakyStore(3);
      const runner = new ProjectionRunner({ eventStore, readModels: new MemoryReadModelStore(), collections: [], logger });
      try {
        await runner.start();
        await eventually(() => runner.status.state === 'connected', 2000, 2);
        const warnings = logger.lines.filter((line) => line.level === 'warn').map((line) => line.msg);
        expect(warnings).to.have.length(3);
        expect(warnings[0]).to.match(/^read-models: cannot subscribe yet \(failure 1\)/);
        expect(logger.lines.some((line) => line.msg === 'read-models: subscribed again after 3 failed attempt(s)')).to.equal(true);
      } finally {
        await runner.stop();
      }
      expect(runner.status.state).to.equal('stopped');
    });
  });

  describe('the EventStoreDB catch-up subscription', () => {
    it('tells its subscriber each drop and each (re)connection', async () => {
      let calls = 0;
      const driverStream = (fail: boolean) => {
        const stream = new Readable({ objectMode: true, read() {} }) as Readable & { unsubscribe(): Promise<void> };
        stream.unsubscribe = async () => undefined;
        setImmediate(() => (fail ? stream.destroy(new UnavailableError(grpcError)) : stream.emit('confirmation')));
        return stream;
      };
      const client = {
        subscribeToAll: () => driverStream(++calls <= 2),
        dispose: async () => undefined,
      } as unknown as EventStoreDBClient;
      const store = new EventStoreDbEventStore(client);
      const dropped: number[] = [];
      let connected = 0;
      const subscription = store.subscribeToAll({
        after: null,
        handle: async () => undefined,
        onDropped: (_error, attempt) => dropped.push(attempt),
        onConnected: () => (connected += 1),
      });
      try {
        await eventually(() => connected === 1, 3000, 5);
        expect(dropped).to.deep.equal([1, 2]);
      } finally {
        await subscription.stop();
        await store.close();
      }
    });
  });

  describe('the webhook fan-out', () => {
    it('reports what its start waits for (the source’s preparation), then the subscription connected', async () => {
      const dir = tempDir('chronicle-visible-');
      const eventStore = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
      const logger = captureLogger();
      let release!: () => void;
      const prepared = new Promise<void>((resolve) => (release = resolve));
      const source: FanOutEventSource = {
        subscribeToAll: (options) => eventStore.subscribeToAll(options),
        prepare: async (_after, hooks) => {
          hooks.onWaiting('the group check');
          hooks.onFailure(new Error('unavailable'), 1);
          await prepared;
        },
      };
      const fanOut = new WebhookFanOut<DerivedWebhookEvent>({
        eventStore,
        source,
        outbox: new SqliteWebhookOutbox(eventStore.db),
        derive: deriveWebhookEvents,
        subscriptionChange,
        matches: matchesFilters,
        toEnvelope,
        logger,
      });
      try {
        const started = fanOut.start();
        await eventually(() => fanOut.status.failures === 1, 2000, 2);
        expect(fanOut.status).to.deep.include({ state: 'starting', waitingFor: 'the group check' });
        const readiness = await checkReadiness({
          eventStore: async () => null,
          readModels: async () => null,
          subscriptions: () => ({ 'webhook-fan-out': fanOut.status }),
          maxLagMs: 1000,
          stopping: () => false,
          logger,
        });
        expect(readiness.ready).to.equal(false);
        expect(readiness.checks.subscriptions).to.deep.equal({ status: 'waiting', waitingFor: { 'webhook-fan-out': 'the group check' } });
        release();
        await started;
        await eventually(() => fanOut.status.state === 'connected', 2000, 2);
        // As /health shows it: the OpenAPI document's SubscriptionStatus.
        const validate = validatorAt('/components/schemas/SubscriptionStatus');
        expect(validate(fanOut.status), JSON.stringify(validate.errors)).to.equal(true);
        await eventStore.append('contact-x', [anEvent('ContactCreated', {})], 'no_stream');
      } finally {
        await fanOut.stop();
        await eventStore.close();
        dir.dispose();
      }
    });

    it('stops quietly while its start still waits', async () => {
      const dir = tempDir('chronicle-visible-');
      const eventStore = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
      const source: FanOutEventSource = {
        subscribeToAll: (options) => eventStore.subscribeToAll(options),
        prepare: (_after, hooks) =>
          new Promise((_resolve, reject) => hooks.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
      };
      const fanOut = new WebhookFanOut<DerivedWebhookEvent>({
        eventStore,
        source,
        outbox: new SqliteWebhookOutbox(eventStore.db),
        derive: deriveWebhookEvents,
        subscriptionChange,
        matches: matchesFilters,
        toEnvelope,
        logger: captureLogger(),
      });
      try {
        const started = fanOut.start();
        await new Promise((resolve) => setTimeout(resolve, 10));
        await fanOut.stop();
        await started; // resolves: a stop is not a failed start
        expect(fanOut.status.state).to.equal('stopped');
      } finally {
        await eventStore.close();
        dir.dispose();
      }
    });
  });

  describe('readiness', () => {
    it('is ok for connected subscriptions and a standby, waiting for the others', async () => {
      const logger = captureLogger();
      const snapshot = (state: 'connected' | 'standby' | 'reconnecting', waitingFor: string | null) => ({
        state,
        waitingFor,
        since: '2026-01-01T00:00:00.000Z',
        failures: 0,
        lastError: null,
      });
      const check = (subs: Record<string, ReturnType<typeof snapshot>>) =>
        checkReadiness({ eventStore: async () => null, readModels: async () => null, subscriptions: () => subs, maxLagMs: 1, stopping: () => false, logger });
      expect((await check({ 'read-models': snapshot('connected', null), 'webhook-fan-out': snapshot('standby', 'the other instance') })).ready).to.equal(true);
      const down = await check({ 'read-models': snapshot('reconnecting', 'the event store to accept the subscription again') });
      expect(down.ready).to.equal(false);
      expect(down.checks.subscriptions).to.deep.equal({
        status: 'waiting',
        waitingFor: { 'read-models': 'the event store to accept the subscription again' },
      });
    });
  });
});
