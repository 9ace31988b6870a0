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
