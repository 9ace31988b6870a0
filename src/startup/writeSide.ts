import { bootstrapDemo, type DemoCredentials } from './bootstrapDemo.js';
import { READ_MODELS_CHECKPOINT } from '../application/subscriptions/ProjectionRunner.js';
import { ReadModelsAheadOfLogError } from '../application/subscriptions/ReadModelsAheadOfLogError.js';
import { systemClock } from '../shared/Clock.js';
import { newId } from '../shared/ids.js';
import type { StartPlan } from './startPlan.js';
import type { Stores } from './Stores.js';

/** Durable read models with a checkpoint beside an empty log: `ReadModelsAheadOfLogError`. */
const refuseEmptyLogBesideReadModels = async ({ eventStore, readModels }: Stores): Promise<void> => {
  if (!readModels.durable || (await eventStore.headPosition()) !== null) return;
  const checkpoint = await readModels.checkpoints.load(READ_MODELS_CHECKPOINT);
  if (checkpoint !== null) throw new ReadModelsAheadOfLogError(READ_MODELS_CHECKPOINT, checkpoint, null);
};

/**
 * The write side of an API process: an empty log gets a demo company and key,
 * so a newcomer can call the API at once (null otherwise, and in a process
 * without RUN_API). An empty log beside read models that applied events is not
 * theirs (a wrong DATA_DIR or EVENTSTORE_URL, a lost file): refused before
 * anything is written to it. (A projector checks its read models against the
 * log as it starts.)
 */
export const startWriteSide = async (plan: StartPlan, stores: Stores): Promise<{ readonly demo: DemoCredentials | null }> => {
  if (!plan.roles.api) return { demo: null };
  await refuseEmptyLogBesideReadModels(stores);
  return { demo: await bootstrapDemo({ eventStore: stores.eventStore, newId, clock: systemClock }) };
};
