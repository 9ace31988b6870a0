import type { Position } from '../../shared/Position.js';

/** Durable positions of named subscriptions. */
export interface CheckpointStore {
  load(name: string): Promise<Position | null>;
  save(name: string, position: Position): Promise<void>;
  /** Forget a checkpoint (a rebuild starts from the beginning). */
  reset(name: string): Promise<void>;
}
