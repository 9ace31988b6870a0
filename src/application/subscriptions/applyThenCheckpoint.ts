import type { CheckpointStore } from '../ports/CheckpointStore.js';
import type { RecordedEvent } from '../ports/EventStore.js';
import type { DocumentCollection, ReadModelDocument } from '../ports/ReadModelStore.js';

/**
 * `ReadModelStore.applyBatch` for stores that cannot commit documents and the
 * checkpoint together (memory, MongoDB): the documents first, then the
 * checkpoint. Each document keeps the position of the last event it applied and
 * skips events at or before it, so a batch cut off half-way is applied again,
 * changing nothing twice, from the older checkpoint.
 */
export const applyThenCheckpoint = async (
  checkpoints: CheckpointStore,
  collections: readonly DocumentCollection<ReadModelDocument>[],
  events: readonly RecordedEvent[],
  checkpoint: string,
): Promise<void> => {
  for (const collection of collections) await collection.apply(events);
  const last = events[events.length - 1];
  if (last) await checkpoints.save(checkpoint, last.position, last.id);
};
