import type { CheckpointStore } from '../../application/ports/CheckpointStore.js';
import type { Position } from '../../shared/Position.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';
import { whenLockFree } from './writeLock.js';

/**
 * Checkpoints in an embedded SQLite file, beside what they describe (the events,
 * or the read models). `eventIds`: the table has an `event_id` column (the read
 * models' file), and a checkpoint saved with the id of the event at its position
 * keeps it, so that a projector can check its read models against the log
 * exactly (`loadEventId`).
 */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly loadStatement;
  private readonly saveStatement;
  /** With the event's id (null: the table has no `event_id` column). */
  private readonly saveWithIdStatement;
  private readonly resetStatement;
  readonly loadEventId?: (name: string) => Promise<string | null>;

  constructor(
    private readonly db: SqliteDatabase,
    { eventIds = false }: { readonly eventIds?: boolean } = {},
  ) {
    this.loadStatement = db.prepare<[string], { position: string }>('SELECT position FROM checkpoints WHERE name = ?');
    this.saveStatement = db.prepare<[string, string]>(
      'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position',
    );
    this.resetStatement = db.prepare<[string]>('DELETE FROM checkpoints WHERE name = ?');
    this.saveWithIdStatement = eventIds
      ? db.prepare<[string, string, string | null]>(
          'INSERT INTO checkpoints (name, position, event_id) VALUES (?, ?, ?) ' +
            'ON CONFLICT (name) DO UPDATE SET position = excluded.position, event_id = excluded.event_id',
        )
      : null;
    if (eventIds) {
      const eventId = db.prepare<[string], string | null>('SELECT event_id FROM checkpoints WHERE name = ?').pluck();
      this.loadEventId = async (name) => eventId.get(name) ?? null;
    }
  }

  /** The synchronous forms run inside a caller's transaction (the read models commit documents and checkpoint together). */
  loadNow(name: string): Position | null {
    return this.loadStatement.get(name)?.position ?? null;
  }

  /** `eventId`: the id of the event at `position`, kept where the table has room for it (else dropped). */
  saveNow(name: string, position: Position, eventId: string | null = null): void {
    if (this.saveWithIdStatement) this.saveWithIdStatement.run(name, position, eventId);
    else this.saveStatement.run(name, position);
  }

  resetNow(name: string): void {
    this.resetStatement.run(name);
  }

  async load(name: string): Promise<Position | null> {
    return this.loadNow(name);
  }

  /** Alone (not in a caller's transaction): waits for the file's write lock with the event loop serving (writeLock.ts). */
  async save(name: string, position: Position, eventId: string | null = null): Promise<void> {
    await whenLockFree(this.db, () => this.saveNow(name, position, eventId));
  }

  async reset(name: string): Promise<void> {
    await whenLockFree(this.db, () => this.resetNow(name));
  }
}
