import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import type { EventStore } from '../../src/application/ports/EventStore.js';
import { UpcastingEventStore } from '../../src/application/versioning/UpcastingEventStore.js';

/** The embedded SQLite event store behind a running Chronicle's (upcasting) event store. */
export const sqliteOf = (eventStore: EventStore): SqliteEventStore => {
  const log = eventStore instanceof UpcastingEventStore ? eventStore.inner : eventStore;
  if (!(log instanceof SqliteEventStore)) throw new Error('expected the embedded SQLite event store');
  return log;
};
