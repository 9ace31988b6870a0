import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import type { EventStore } from '../../src/application/ports/EventStore.js';

/** The embedded SQLite event store behind a running Chronicle's event store (under its decorators, each with `inner`). */
export const sqliteOf = (eventStore: EventStore): SqliteEventStore => {
  let log: unknown = eventStore;
  while (!(log instanceof SqliteEventStore) && typeof log === 'object' && log !== null && 'inner' in log) log = (log as { inner: unknown }).inner;
  if (!(log instanceof SqliteEventStore)) throw new Error('expected the embedded SQLite event store');
  return log;
};
