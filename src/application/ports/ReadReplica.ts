import type { ReadModelStore } from './ReadModelStore.js';

/**
 * A streaming replica of the database the read models are in (POSTGRES_READ_URL),
 * for an API process's reads: its read models to read, never to write.
 */
export interface ReadReplica {
  /** The read models as the replica has replayed them, with their checkpoint (reads only). */
  readonly readModels: ReadModelStore;
  /**
   * How long ago the replica replayed the last commit it received, in seconds, when
   * it has received more than it replayed (0 when it has replayed all it received:
   * an idle replica is not behind); null when the server is not a replica.
   */
  replayDelaySeconds(): Promise<number | null>;
  close(): Promise<void>;
}
