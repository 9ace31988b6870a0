import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { eventStoreContract } from './eventStore.contract.js';
import { skipLine } from '../support/integration.js';

eventStoreContract('SQLite (embedded)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
  const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const eventStoreUrl = process.env.EVENTSTORE_URL;
if (eventStoreUrl) {
  eventStoreContract('EventStoreDB', async () => {
    const { EventStoreDbEventStore } = await import('../../src/adapters/eventstoredb/EventStoreDbEventStore.js');
    const store = EventStoreDbEventStore.connect(eventStoreUrl);
    return { store, dispose: () => store.close() };
  });
} else {
  skipLine('EventStore contract: EventStoreDB', 'EVENTSTORE_URL');
}
