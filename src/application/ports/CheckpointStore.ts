import type { Position } from '../../shared/Position.js';

/** Durable positions of named subscriptions. */
export interface CheckpointStore {
  load(name: string): Promise<Position | null>;
  save(name: string, position: Position): Promise<void>;
  /** Forget a checkpoint (a rebuild starts from the beginning). */
  reset(name: string): Promise<void>;
  /**
   * The id of the event at the checkpoint's position, when the store keeps it with
   * the checkpoint (SQLite read models; null: none kept, as by an older release).
   */
  loadEventId?(name: string): Promise<string | null>;
}
