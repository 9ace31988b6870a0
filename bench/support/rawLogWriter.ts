import { openSqliteDatabase, type SqliteDatabase } from '../../src/adapters/sqlite/openSqliteDatabase.js';
import type { DomainEvent } from '../../src/shared/Decider.js';
import type { EventMetadata } from '../../src/shared/EventMetadata.js';
import { newId } from '../../src/shared/ids.js';

/**
 * Writes events straight into an embedded log file (no fsync per event, no
 * group commit), keeping each stream's revisions: how the benchmarks seed large
 * logs. Call `append` inside `db.transaction`.
 */
export const rawLogWriter = (file: string) => {
  const db: SqliteDatabase = openSqliteDatabase(file);
  const insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const revisions = new Map<string, number>();
  let written = 0;
  return {
    db,
    written: () => written,
    append(stream: string, events: readonly DomainEvent[], metadata: EventMetadata, at: string): void {
      for (const event of events) {
        const revision = revisions.get(stream) ?? 0;
        revisions.set(stream, revision + 1);
        insert.run(newId(), stream, revision, event.type, JSON.stringify(event.data), JSON.stringify(metadata), at);
        written++;
      }
    },
  };
};
