import type { Stores } from '../main.js';
import { ProjectionRunner, READ_MODELS_CHECKPOINT } from '../application/ProjectionRunner.js';
import { silentLogger } from '../application/ports/Logger.js';
import type { Position } from '../shared/Position.js';
import type { UndecodableEventError } from '../application/UndecodableEventError.js';
import { PROJECTIONS } from '../features/index.js';

/**
 * Embedded read models are a file that any process on the DATA_DIR may bring up to
 * the log: this applies what the log holds beyond their checkpoint, as the
 * server's projector would. Safe beside a running projector: each batch commits
 * with the checkpoint, and events at or before the checkpoint another process
 * saved are skipped. Resolves the checkpoint reached, and the event it stopped at
 * when one cannot be read (the read models hold everything before it).
 */
export const catchUpReadModels = async ({
  eventStore,
  readModels,
}: Pick<Stores, 'eventStore' | 'readModels'>): Promise<{ readonly reached: Position | null; readonly stoppedBy: UndecodableEventError | null }> => {
  const collections = PROJECTIONS.map((projection) => readModels.collection(projection));
  await readModels.init();
  const runner = new ProjectionRunner({ eventStore, readModels, collections, logger: silentLogger });
  await runner.start();
  await runner.stop();
  return { reached: await readModels.checkpoints.load(READ_MODELS_CHECKPOINT), stoppedBy: runner.failure };
};
