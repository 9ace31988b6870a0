import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { eventStoreContract, type EventStoreFixture } from './eventStore.contract.js';
import { eventStoreVersionsContract } from './eventStoreVersions.contract.js';
import { skipLine } from '../support/integration.js';

const openSqlite = async (): Promise<EventStoreFixture> => {
  const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
  const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
eventStoreContract('SQLite (embedded)', openSqlite, { multiStreamAppend: true });
eventStoreVersionsContract('SQLite (embedded)', openSqlite);

const eventStoreUrl = process.env.EVENTSTORE_URL;
if (eventStoreUrl) {
  const openEventStoreDb = async (): Promise<EventStoreFixture> => {
    const { EventStoreDbEventStore } = await import('../../src/adapters/eventstoredb/EventStoreDbEventStore.js');
    const store = EventStoreDbEventStore.connect(eventStoreUrl);
    return { store, dispose: () => store.close() };
  };
  eventStoreContract('EventStoreDB', openEventStoreDb, { multiStreamAppend: false });
  eventStoreVersionsContract('EventStoreDB', openEventStoreDb, { shared: true });
} else {
  skipLine('EventStore contract: EventStoreDB', 'EVENTSTORE_URL');
}

describe('SqliteEventStore: appends of another connection on the file (another process)', () => {
  it('reach an idle subscription within milliseconds, read only once the file changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
    const file = join(dir, 'events.sqlite');
    const follower = SqliteEventStore.open(file);
    const writer = SqliteEventStore.open(file);
    let reads = 0;
    const counted = follower as unknown as { readAllSync: (...args: unknown[]) => unknown };
    const readAllSync = counted.readAllSync.bind(follower);
    counted.readAllSync = (...args: unknown[]) => {
      reads += 1;
      return readAllSync(...args);
    };
    const seen: { position: string; at: number }[] = [];
    const subscription = follower.subscribeToAll({
      after: null,
      handle: async (batch) => {
        for (const event of batch) seen.push({ position: event.position, at: performance.now() });
      },
    });
    try {
      // Idle for 200 ms: the log is read once at the start, then no more (40 checks of the version).
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(reads).to.equal(1);
      const latencies: number[] = [];
      for (let i = 0; i < 20; i++) {
        const { position } = await writer.append(`s-${i}`, [{ id: randomUUID(), type: 'Pinged', data: {}, metadata: { source: 'system', correlationId: 'c' } }], 'no_stream');
        const appendedAt = performance.now();
        while (!seen.some((event) => event.position === position)) await new Promise((resolve) => setTimeout(resolve, 1));
        latencies.push(seen.find((event) => event.position === position)!.at - appendedAt);
      }
      latencies.sort((a, b) => a - b);
      // From the durable append to the handler: checked every 5 ms, the median well under a 50 ms poll.
      expect(latencies[10]).to.be.below(25);
    } finally {
      await subscription.stop();
      await follower.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteEventStore: telling other processes of appends (API_WORKERS)', () => {
  const pinged = () => [{ id: randomUUID(), type: 'Pinged', data: {}, metadata: { source: 'system' as const, correlationId: 'c' } }];

  it('calls onAppended once per group commit that stored something, not for one whose every append was refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    let commits = 0;
    const stop = store.onAppended(() => (commits += 1));
    try {
      // Three appends in one turn of the event loop: one group commit.
      await Promise.all([store.append('a', pinged(), 'no_stream'), store.append('b', pinged(), 'no_stream'), store.append('c', pinged(), 'no_stream')]);
      expect(commits).to.equal(1);
      // A group commit of refused appends only (wrong revision) stores nothing: nobody is told.
      const refused = await store.append('a', pinged(), 'no_stream').then(
        () => 'stored',
        (error: Error) => error.name,
      );
      expect(refused).to.equal('WrongExpectedRevisionError');
      expect(commits).to.equal(1);
      await store.append('a', pinged(), 0);
      expect(commits).to.equal(2);
      stop();
      await store.append('a', pinged(), 1);
      expect(commits).to.equal(2);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lookNow makes an idle subscription read another connection’s append at once, not at its next poll', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
    const file = join(dir, 'events.sqlite');
    // Polls a minute apart: only lookNow can bring the event within the test's time.
    const follower = SqliteEventStore.open(file, { pollIntervalMs: 60_000 });
    const writer = SqliteEventStore.open(file);
    const seen: string[] = [];
    let arrived: () => void = () => undefined;
    const subscription = follower.subscribeToAll({
      after: null,
      handle: async (batch) => {
        seen.push(...batch.map((event) => event.position));
        arrived();
      },
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const { position } = await writer.append('s', pinged(), 'no_stream');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen).to.deep.equal([]);
      const seenNow = new Promise<void>((resolve) => (arrived = resolve));
      follower.lookNow();
      await seenNow;
      expect(seen).to.deep.equal([position]);
    } finally {
      await subscription.stop();
      await follower.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
