import { expect } from 'chai';
import { Readable } from 'node:stream';
import { BACKWARDS, END, type EventStoreDBClient, type ReadAllOptions } from '@eventstore/db-client';
import { EventStoreDbEventStore, encodeEsdbPosition } from '../../../src/adapters/eventstoredb/EventStoreDbEventStore.js';
import { EsdbPersistentFanOutSource } from '../../../src/adapters/eventstoredb/EsdbPersistentFanOutSource.js';
import { ResumePointNotInLogError, type RecordedEvent } from '../../../src/application/ports/EventStore.js';
import { eventually, sleep } from '../../support/events.js';

/**
 * A log put back to an older copy (EventStoreDB restored from a backup): what the
 * adapters do where a subscription would resume. Only a real server restored from
 * a backup shows this end to end (the hosted workflow restarts one); these drive
 * the adapters through a stand-in of the EventStoreDB client that plays the
 * server's answers: $all reads, a subscription that drops, and the server's
 * "Trying to read from an invalid position" (gRPC INVALID_ARGUMENT) for a position
 * where no record begins.
 */
const pos = (n: number) => ({ commit: BigInt(n), prepare: BigInt(n) });
const p = (n: number) => encodeEsdbPosition(pos(n));
const id = (n: number, era = 'a') => `00000000-0000-4000-8000-${era.repeat(4)}${String(n).padStart(8, '0')}`;

const driverEvent = (n: number, era = 'a') => ({
  streamId: `contact-${n}`,
  id: id(n, era),
  revision: 0n,
  type: 'ContactCreated',
  data: { n },
  metadata: { source: 'api', correlationId: `c${n}` },
  isJson: true,
  created: new Date('2026-01-01T00:00:00.000Z'),
  position: pos(n),
});
type DriverEvent = ReturnType<typeof driverEvent>;

/** What the server answers for a position where no record begins. */
const invalidPosition = () => Object.assign(new Error('3 INVALID_ARGUMENT: Trying to read from an invalid position.'), { code: 3 });

/** A stand-in of the client: a log whose events the test replaces (a restore), subscriptions the test drops. */
const standIn = () => {
  const state = { log: [] as DriverEvent[], streams: [] as (Readable & { from: unknown })[], subscribeFails: null as (() => Error) | null };
  const isBoundary = (from: unknown) => from === 'start' || from === END || state.log.some((e) => e.position.commit === (from as { commit: bigint }).commit);
  const client = {
    readAll(options: ReadAllOptions = {}) {
      const from = options.fromPosition;
      const max = Number(options.maxCount ?? 1000);
      const backwards = options.direction === BACKWARDS;
      return (async function* () {
        if (from !== undefined && !isBoundary(from)) throw invalidPosition();
        const ordered = backwards ? [...state.log].reverse() : state.log;
        const start = from === undefined || from === 'start' || from === END ? 0 : ordered.findIndex((e) => e.position.commit === (from as { commit: bigint }).commit);
        yield* ordered.slice(start, start + max).map((event) => ({ event }));
      })();
    },
    subscribeToAll(options: { fromPosition: unknown }) {
      const stream = Object.assign(new Readable({ objectMode: true, read: () => undefined }), {
        from: options.fromPosition,
        unsubscribe: async () => undefined,
      });
      state.streams.push(stream);
      const failure = state.subscribeFails?.() ?? (isBoundary(options.fromPosition) ? null : invalidPosition());
      if (failure) setImmediate(() => stream.destroy(failure));
      return stream;
    },
    dispose: async () => undefined,
  };
  return { client: client as unknown as EventStoreDBClient, state };
};

describe('EventStoreDB: where a subscription resumes, on a log put back to an older copy (stand-in of the EventStoreDB client)', () => {
  describe('eventIdAt', () => {
    it('answers the id of the event that begins at the position, else null', async () => {
      const { client, state } = standIn();
      state.log = [driverEvent(10), driverEvent(20)];
      const store = new EventStoreDbEventStore(client);
      expect(await store.eventIdAt(p(20))).to.equal(id(20));
      expect(await store.eventIdAt(p(15)), 'no record begins there').to.equal(null);
      expect(await store.eventIdAt(p(30)), 'past the end').to.equal(null);
    });
  });

  describe('the catch-up subscription (the projector on EventStoreDB)', () => {
    it('stops for good, telling onFailed once, when the server says no record begins where it resumes (never retried)', async () => {
      const { client, state } = standIn();
      state.log = [driverEvent(10), driverEvent(20)];
      const store = new EventStoreDbEventStore(client);
      const failed: ResumePointNotInLogError[] = [];
      const dropped: unknown[] = [];
      const subscription = store.subscribeToAll({
        after: p(15),
        handle: async () => undefined,
        onFailed: (error) => failed.push(error),
        onDropped: (error) => dropped.push(error),
      });
      await eventually(() => failed.length === 1, 2_000);
      await sleep(300);
      expect(failed).to.have.length(1);
      expect(failed[0]!.position).to.equal(p(15));
      expect(failed[0]!.message).to.contain('no event begins there');
      expect(dropped, 'not retried').to.deep.equal([]);
      expect(state.streams).to.have.length(1);
      await subscription.stop();
    });

    it('after a drop, resumes only where the log still holds the event it handled: a log that ends before it, or holds another event there, stops it', async () => {
      for (const restored of [
        { log: [driverEvent(10)], says: `it ends at position ${p(10)}` },
        { log: [driverEvent(10), driverEvent(20, 'b')], says: `event ${id(20, 'b')} is there` },
      ]) {
        const { client, state } = standIn();
        state.log = [driverEvent(10), driverEvent(20)];
        const store = new EventStoreDbEventStore(client);
        const handled: RecordedEvent[] = [];
        const failed: ResumePointNotInLogError[] = [];
        const subscription = store.subscribeToAll({ after: null, handle: async (batch) => void handled.push(...batch), onFailed: (error) => failed.push(error) });
        await eventually(() => state.streams.length === 1, 1_000);
        state.streams[0]!.push({ event: driverEvent(10) });
        state.streams[0]!.push({ event: driverEvent(20) });
        await eventually(() => handled.length === 2, 1_000);
        // The server restarts from an older copy (and, in the second case, takes a new event at 20).
        state.log = restored.log;
        state.streams[0]!.destroy(Object.assign(new Error('14 UNAVAILABLE: Connection dropped'), { code: 14 }));
        await eventually(() => failed.length === 1, 5_000);
        expect(failed[0]!.message).to.contain(restored.says);
        expect(state.streams, 'not resubscribed').to.have.length(1);
        await subscription.stop();
      }
    });

    it('after a drop on the same log, resubscribes from the event it handled', async () => {
      const { client, state } = standIn();
      state.log = [driverEvent(10), driverEvent(20)];
      const store = new EventStoreDbEventStore(client);
      const failed: unknown[] = [];
      const handled: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({ after: null, handle: async (batch) => void handled.push(...batch), onFailed: (error) => failed.push(error) });
      await eventually(() => state.streams.length === 1, 1_000);
      state.streams[0]!.push({ event: driverEvent(10) });
      await eventually(() => handled.length === 1, 1_000);
      state.streams[0]!.destroy(Object.assign(new Error('14 UNAVAILABLE: Connection dropped'), { code: 14 }));
      await eventually(() => state.streams.length === 2, 5_000);
      expect(state.streams[1]!.from).to.deep.equal(pos(10));
      expect(failed).to.deep.equal([]);
      await subscription.stop();
    });
  });

  describe('the webhook fan-out’s persistent subscription group', () => {
    it('refuses to start, without retrying, when no record begins at the outbox’s position', async () => {
      const { client, state } = standIn();
      state.log = [driverEvent(10), driverEvent(20)];
      // The group exists already; its info is read, then the log after the outbox's position.
      Object.assign(client, {
        createPersistentSubscriptionToAll: async () => {
          const { PersistentSubscriptionExistsError } = await import('@eventstore/db-client');
          throw new PersistentSubscriptionExistsError({ message: 'exists', code: 6, metadata: { getMap: () => ({}) } } as never);
        },
        getPersistentSubscriptionToAllInfo: async () => ({
          settings: { startFrom: 'start', consumerStrategyName: 'DispatchToSingle', maxSubscriberCount: 1, resolveLinkTos: false, maxRetryCount: 2147483647, messageTimeout: 2147483647 },
          stats: { lastCheckpointedEventPosition: pos(10) },
        }),
      });
      const failures: number[] = [];
      const refused = await new EsdbPersistentFanOutSource(client).prepare(p(15), { onFailure: (_error, attempt) => failures.push(attempt) }).catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(ResumePointNotInLogError);
      expect((refused as Error).message).to.contain(`at position ${p(15)}`);
      expect(failures, 'not retried').to.deep.equal([]);
    });

    it('after a drop, stops for good when the log no longer holds the event it stored last', async () => {
      const { client, state } = standIn();
      state.log = [driverEvent(10), driverEvent(20)];
      const streams: (Readable & { ack: () => Promise<void> })[] = [];
      Object.assign(client, {
        createPersistentSubscriptionToAll: async () => undefined,
        subscribeToPersistentSubscriptionToAll: () => {
          const stream = Object.assign(new Readable({ objectMode: true, read: () => undefined }), {
            ack: async () => undefined,
            unsubscribe: async () => undefined,
          });
          streams.push(stream);
          return stream;
        },
      });
      const source = new EsdbPersistentFanOutSource(client);
      const handled: RecordedEvent[] = [];
      const failed: ResumePointNotInLogError[] = [];
      const subscription = source.subscribeToAll({ after: null, handle: async (batch) => void handled.push(...batch), onFailed: (error) => failed.push(error) });
      await eventually(() => streams.length === 1, 1_000);
      streams[0]!.push({ event: driverEvent(10), retryCount: 0 });
      streams[0]!.push({ event: driverEvent(20), retryCount: 0 });
      await eventually(() => handled.length === 2, 1_000);
      // Restored from a backup that ends at 10: the group would hand new events over under 20 and below, skipped as stored.
      state.log = [driverEvent(10)];
      streams[0]!.destroy(Object.assign(new Error('14 UNAVAILABLE: Connection dropped'), { code: 14 }));
      await eventually(() => failed.length === 1, 5_000);
      expect(failed[0]!.message).to.contain(`it ends at position ${p(10)}`);
      expect(streams).to.have.length(1);
      await subscription.stop();
    });
  });
});
