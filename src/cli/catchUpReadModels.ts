import type { Stores } from '../startup/startChronicle.js';
import { ProjectionRunner, READ_MODELS_CHECKPOINT } from '../application/subscriptions/ProjectionRunner.js';
import { silentLogger } from '../application/ports/Logger.js';
import type { Position } from '../shared/Position.js';
import type { UndecodableEventError } from '../application/versioning/UndecodableEventError.js';
import { PROJECTIONS } from '../features/index.js';
import { ReadModelsToBuildError } from '../application/replay/buildAddedReadModels.js';

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
  // Built only under the read models' lease, by a projector or a replay: a listing without them would mislead.
  const toBuild = await readModels.readModelsToBuild();
  if (toBuild.length > 0 && (await readModels.checkpoints.load(READ_MODELS_CHECKPOINT)) !== null) throw new ReadModelsToBuildError(toBuild);
  const runner = new ProjectionRunner({ eventStore, readModels, collections, logger: silentLogger });
  await runner.start();
  await runner.stop();
  return { reached: await readModels.checkpoints.load(READ_MODELS_CHECKPOINT), stoppedBy: runner.failure };
};
