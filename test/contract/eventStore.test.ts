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
