// Raw read rates of an embedded log, shared by the benchmarks that compare against them.
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../src/adapters/sqlite/SqliteEventStore.js';
import type { RecordedEvent } from '../src/application/ports/EventStore.js';

export const rate = (count: number, ms: number): number => Math.round((count * 1000) / ms);

/** Raw: SELECT … iterate() and JSON.parse of data and metadata, events per second. */
export const rawReadParse = (file: string): number => {
  const db = new Database(file, { readonly: true });
  const start = performance.now();
  let count = 0;
  for (const r of db.prepare('SELECT * FROM events ORDER BY position').iterate() as IterableIterator<{ data: string; metadata: string }>) {
    JSON.parse(r.data);
    JSON.parse(r.metadata);
    count++;
  }
  const ms = performance.now() - start;
  db.close();
  return rate(count, ms);
};

/**
 * Through the port: `readAll` in batches, as a replay reads the log (the store
 * parses each row's JSON into a RecordedEvent), events per second. `visit` sees
 * every event (e.g. a decoder); without it the rate is read + parse alone.
 */
export const readAllBatches = async (file: string, batchSize = 1000, visit?: (event: RecordedEvent) => void): Promise<{ events: number; perSecond: number }> => {
  const store = SqliteEventStore.open(file);
  const start = performance.now();
  let events = 0;
  let after: string | null = null;
  for (;;) {
    const batch: RecordedEvent[] = await store.readAll({ after, maxCount: batchSize });
    if (batch.length === 0) break;
    if (visit) for (const event of batch) visit(event);
    events += batch.length;
    after = batch[batch.length - 1]!.position;
  }
  const ms = performance.now() - start;
  await store.close();
  return { events, perSecond: rate(events, ms) };
};
