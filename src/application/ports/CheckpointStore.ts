import type { Position } from '../../shared/Position.js';

/** Durable positions of named subscriptions. */
export interface CheckpointStore {
  load(name: string): Promise<Position | null>;
  /**
   * `eventId`: the id of the event at `position`, kept by a store with room for it
   * (`loadEventId`), so that a subscriber can check the log against it at its next
   * start; a store without room ignores it.
   */
  save(name: string, position: Position, eventId?: string | null): Promise<void>;
  /** Forget a checkpoint (a rebuild starts from the beginning). */
  reset(name: string): Promise<void>;
  /**
   * The id of the event at the checkpoint's position, when the store keeps it with
   * the checkpoint (SQLite and MongoDB read models; null: none kept, as by an older release).
   */
  loadEventId?(name: string): Promise<string | null>;
}
