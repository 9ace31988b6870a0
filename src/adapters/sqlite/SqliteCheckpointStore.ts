import type { CheckpointStore } from '../../application/ports/CheckpointStore.js';
import type { Position } from '../../shared/Position.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';
import { whenLockFree } from './writeLock.js';

/** Checkpoints in an embedded SQLite file, beside what they describe (the events, or the read models). */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly loadStatement;
  private readonly saveStatement;
  private readonly resetStatement;

  constructor(private readonly db: SqliteDatabase) {
    this.loadStatement = db.prepare<[string], { position: string }>('SELECT position FROM checkpoints WHERE name = ?');
    this.saveStatement = db.prepare<[string, string]>(
      'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position',
    );
    this.resetStatement = db.prepare<[string]>('DELETE FROM checkpoints WHERE name = ?');
  }

  /** The synchronous forms run inside a caller's transaction (the read models commit documents and checkpoint together). */
  loadNow(name: string): Position | null {
    return this.loadStatement.get(name)?.position ?? null;
  }

  saveNow(name: string, position: Position): void {
    this.saveStatement.run(name, position);
  }

  resetNow(name: string): void {
    this.resetStatement.run(name);
  }

  async load(name: string): Promise<Position | null> {
    return this.loadNow(name);
  }

  /** Alone (not in a caller's transaction): waits for the file's write lock with the event loop serving (writeLock.ts). */
  async save(name: string, position: Position): Promise<void> {
    await whenLockFree(this.db, () => this.saveNow(name, position));
  }

  async reset(name: string): Promise<void> {
    await whenLockFree(this.db, () => this.resetNow(name));
  }
}
