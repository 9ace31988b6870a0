import type { CheckpointStore } from '../application/ports/CheckpointStore.js';
import type { FanOutLogWitness } from './fanOut.js';

/**
 * The fan-out's witness (see `FanOutLogWitness`) as a checkpoint of its own in a
 * store that keeps the id of a checkpoint's event (the read models' checkpoints,
 * beside the outbox in MongoDB); undefined when the store keeps no ids.
 */
export const checkpointWitness = (checkpoints: CheckpointStore): FanOutLogWitness | undefined => {
  const { loadEventId } = checkpoints;
  if (!loadEventId) return undefined;
  const key = (name: string) => `${name}:log-witness`;
  return {
    load: async (name) => {
      const [position, eventId] = await Promise.all([checkpoints.load(key(name)), loadEventId.call(checkpoints, key(name))]);
      return position !== null && eventId !== null ? { position, eventId } : null;
    },
    save: (name, position, eventId) => checkpoints.save(key(name), position, eventId),
  };
};
