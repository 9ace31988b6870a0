import type { CheckpointStore } from '../../application/ports/CheckpointStore.js';
import type { Position } from '../../shared/Position.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';

/** Checkpoints in the embedded SQLite file (beside the events they point into). */
export class SqliteCheckpointStore implements CheckpointStore {
  private readonly loadStatement;
  private readonly saveStatement;
  private readonly resetStatement;

  constructor(db: SqliteDatabase) {
    this.loadStatement = db.prepare<[string], { position: string }>('SELECT position FROM checkpoints WHERE name = ?');
    this.saveStatement = db.prepare<[string, string]>(
      'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position',
    );
    this.resetStatement = db.prepare<[string]>('DELETE FROM checkpoints WHERE name = ?');
  }

  async load(name: string): Promise<Position | null> {
    return this.loadStatement.get(name)?.position ?? null;
  }

  async save(name: string, position: Position): Promise<void> {
    this.saveStatement.run(name, position);
  }

  async reset(name: string): Promise<void> {
    this.resetStatement.run(name);
  }
}
