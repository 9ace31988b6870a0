import { expect } from 'chai';
import {
  PersistentSubscriptionExistsError,
  PersistentSubscriptionDoesNotExistError,
  UnavailableError,
  START,
  type EventStoreDBClient,
  type ReadAllOptions,
} from '@eventstore/db-client';
import {
  EsdbPersistentFanOutSource,
  FanOutGroupAheadError,
  RESET_FAN_OUT_COMMAND,
  groupResumePoint,
  groupSkips,
} from '../../../src/adapters/eventstoredb/EsdbPersistentFanOutSource.js';
import { encodeEsdbPosition } from '../../../src/adapters/eventstoredb/EventStoreDbEventStore.js';
import { captureLogger } from '../../support/captureLogger.js';

/**
 * The fan-out group's gap check (issue: a group ahead of the outbox skips the
 * events in between). The decisions are pure; the flow is driven here through a
 * stand-in for the client's persistent-subscription calls and `readAll`, which
 * records what the source asks the server to do. The same flow against a real
 * EventStoreDB is in test/contract/esdbPersistentFanOut.test.ts (EVENTSTORE_URL).
 */
const pos = (n: number) => ({ commit: BigInt(n), prepare: BigInt(n) });
const p = (n: number) => encodeEsdbPosition(pos(n));

const grpcError = { message: 'stand-in', code: 6, metadata: { getMap: () => ({}) } } as never;

interface StubGroup {
  startFrom: unknown;
  checkpoint?: { commit: bigint; prepare: bigint };
}

const stubClient = (options: { ours: number[]; system?: number[]; group?: StubGroup; unavailable?: number }) => {
  const calls: string[] = [];
  let group = options.group ?? null;
  let unavailable = options.unavailable ?? 0;
  const log = [
    ...options.ours.map((n) => ({ n, system: false })),
    ...(options.system ?? []).map((n) => ({ n, system: true })),
  ].sort((a, b) => a.n - b.n);
  const client = {
    async createPersistentSubscriptionToAll(_name: string, settings: { startFrom: unknown }) {
      if (unavailable > 0) {
        unavailable -= 1;
        throw new UnavailableError(grpcError);
      }
      if (group) throw new PersistentSubscriptionExistsError(grpcError);
      const from = settings.startFrom === START ? 'start' : encodeEsdbPosition(settings.startFrom as never);
      calls.push(`create from ${from}`);
      group = { startFrom: settings.startFrom };
    },
    async getPersistentSubscriptionToAllInfo() {
      if (!group) throw new PersistentSubscriptionDoesNotExistError(grpcError);
      return {
        settings: { startFrom: group.startFrom, consumerStrategyName: 'DispatchToSingle', maxSubscriberCount: 1, resolveLinkTos: false, maxRetryCount: 2147483647, messageTimeout: 2147483647 },
        stats: { lastCheckpointedEventPosition: group.checkpoint },
      };
    },
    async deletePersistentSubscriptionToAll() {
      calls.push('delete');
      group = null;
    },
    readAll(read: ReadAllOptions = {}) {
      const from = read.fromPosition === undefined || read.fromPosition === 'start' ? 0n : (read.fromPosition as { commit: bigint }).commit;
      const page = log
        .filter((e) => BigInt(e.n) >= from)
        .slice(0, Number(read.maxCount ?? 1000))
        .map(({ n, system }) => ({
          event: {
            streamId: system ? '$stats-x' : `contact-${n}`,
            id: `id-${n}`,
            revision: 0n,
            type: system ? '$statsCollected' : 'ContactCreated',
            data: {},
            metadata: {},
            isJson: true,
            created: new Date(0),
            position: pos(n),
          },
        }));
      return (async function* () {
        yield* page;
      })();
    },
  };
  return { client: client as unknown as EventStoreDBClient, calls };
};

describe('EventStoreDB webhook fan-out group: resuming no later than the outbox', () => {
  describe('where a group resumes, and whether it skips the first event the outbox lacks', () => {
    it('resumes after its checkpoint, else from where it was created to start', () => {
      expect(groupResumePoint({ settings: { startFrom: START } as never, stats: { lastCheckpointedEventPosition: pos(50) } as never })).to.deep.equal({
        kind: 'after',
        position: p(50),
      });
      expect(groupResumePoint({ settings: { startFrom: pos(30) } as never, stats: {} as never })).to.deep.equal({ kind: 'from', position: p(30) });
      expect(groupResumePoint({ settings: { startFrom: START } as never, stats: {} as never })).to.deep.equal({ kind: 'start' });
    });

    it('skips the next event when it lies at or before the checkpoint, or before the start', () => {
      expect(groupSkips({ kind: 'after', position: p(50) }, p(40))).to.equal(true);
      expect(groupSkips({ kind: 'after', position: p(50) }, p(50))).to.equal(true);
      expect(groupSkips({ kind: 'after', position: p(50) }, p(60))).to.equal(false);
      expect(groupSkips({ kind: 'from', position: p(50) }, p(50))).to.equal(false);
      expect(groupSkips({ kind: 'from', position: p(50) }, p(49))).to.equal(true);
      expect(groupSkips({ kind: 'start' }, p(1))).to.equal(false);
      expect(groupSkips({ kind: 'end' }, p(1))).to.equal(true);
      // Nothing of ours after the outbox's position: nothing to skip.
      expect(groupSkips({ kind: 'after', position: p(50) }, null)).to.equal(false);
    });
  });

  describe('at start (prepare)', () => {
    it('creates a missing group at the outbox’s position', async () => {
      const { client, calls } = stubClient({ ours: [10, 20] });
      await new EsdbPersistentFanOutSource(client).prepare(p(10));
      expect(calls).to.deep.equal([`create from ${p(10)}`]);
    });

    it('keeps a group whose checkpoint is behind the outbox', async () => {
      const { client, calls } = stubClient({ ours: [10, 20, 30], group: { startFrom: START, checkpoint: pos(20) } });
      await new EsdbPersistentFanOutSource(client).prepare(p(30));
      expect(calls).to.deep.equal([]);
    });

    it('recreates at the outbox’s position a group that is ahead of it (an outbox restored from a backup)', async () => {
      const logger = captureLogger();
      const { client, calls } = stubClient({ ours: [10, 20, 30, 40], group: { startFrom: START, checkpoint: pos(40) } });
      await new EsdbPersistentFanOutSource(client, { logger }).prepare(p(20));
      expect(calls).to.deep.equal(['delete', `create from ${p(20)}`]);
      const warning = logger.lines.find((line) => line.level === 'warn');
      expect(warning?.msg).to.match(/group is ahead of the outbox/);
      expect(warning?.obj).to.include({ outboxPosition: p(20), firstMissed: p(30) });
    });

    it('keeps a group that is ahead only over system events (nothing of ours in between)', async () => {
      const { client, calls } = stubClient({ ours: [10], system: [20, 30, 40], group: { startFrom: START, checkpoint: pos(40) } });
      await new EsdbPersistentFanOutSource(client).prepare(p(10));
      expect(calls).to.deep.equal([]);
      // A fresh install that restarted before its first event: an empty outbox, a group past system events only.
      const fresh = stubClient({ ours: [], system: [20, 30], group: { startFrom: START, checkpoint: pos(30) } });
      await new EsdbPersistentFanOutSource(fresh.client).prepare(null);
      expect(fresh.calls).to.deep.equal([]);
    });

    it('refuses to start on an empty outbox behind the group, naming the reset command', async () => {
      const { client, calls } = stubClient({ ours: [10, 20], group: { startFrom: START, checkpoint: pos(20) } });
      const error = await new EsdbPersistentFanOutSource(client).prepare(null).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(FanOutGroupAheadError);
      expect((error as Error).message).to.contain(RESET_FAN_OUT_COMMAND).and.to.contain('MONGODB_DB');
      expect(calls).to.deep.equal([]);
    });

    it('waits while EventStoreDB cannot be reached, saying what for and counting the failures', async () => {
      const { client, calls } = stubClient({ ours: [], unavailable: 2 });
      const waiting: string[] = [];
      const failures: number[] = [];
      await new EsdbPersistentFanOutSource(client).prepare(null, {
        onWaiting: (what) => waiting.push(what),
        onFailure: (_error, attempt) => failures.push(attempt),
      });
      expect(waiting).to.deep.equal(['EventStoreDB to check the persistent subscription group chronicle-webhook-fan-out']);
      expect(failures).to.deep.equal([1, 2]);
      expect(calls).to.deep.equal(['create from start']);
    });

    it('stops waiting when aborted', async () => {
      const { client } = stubClient({ ours: [], unavailable: 1000 });
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('stopping')), 30);
      const error = await new EsdbPersistentFanOutSource(client).prepare(null, { signal: controller.signal }).then(
        () => null,
        (e: unknown) => e,
      );
      expect((error as Error | null)?.message).to.equal('stopping');
    });
  });
});
