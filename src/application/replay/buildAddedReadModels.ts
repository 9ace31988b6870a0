import type { EventStore } from '../ports/EventStore.js';
import type { Logger } from '../ports/Logger.js';
import type { Projection, ReadModelDocument, ReadModelStore } from '../ports/ReadModelStore.js';
import { READ_MODELS_CHECKPOINT } from '../subscriptions/ProjectionRunner.js';
import { replayReadModels, type ReplaySummary } from './replayReadModels.js';

/**
 * Read models this release adds, found empty beside read models that applied the
 * log (`ReadModelStore.readModelsToBuild`), would miss every event before the
 * checkpoint. Before the projector resumes, every read model is rebuilt from the
 * log (a replay: the live ones keep serving until the swap), so they all stand at
 * the same position again. Runs under the read models' lease; null when nothing
 * was to build.
 */
export const buildAddedReadModels = async (deps: {
  readonly eventStore: EventStore;
  readonly readModels: ReadModelStore;
  readonly projections: readonly Projection<ReadModelDocument>[];
  readonly logger: Logger;
}): Promise<ReplaySummary | null> => {
  const { readModels, logger } = deps;
  if (!readModels.durable) return null;
  const toBuild = await readModels.readModelsToBuild();
  if (toBuild.length === 0) return null;
  if ((await readModels.checkpoints.load(READ_MODELS_CHECKPOINT)) === null) return null;
  logger.warn({ readModels: toBuild }, 'read models added by this release: rebuilding every read model from the log before resuming');
  let lastLog = performance.now();
  const summary = await replayReadModels({
    eventStore: deps.eventStore,
    readModels,
    projections: deps.projections,
    onProgress: ({ events, position, head }) => {
      if (performance.now() - lastLog < 2000) return;
      lastLog = performance.now();
      logger.info({ events, position, head }, 'rebuilding the read models');
    },
  });
  logger.info({ events: summary.events, ms: summary.ms, position: summary.position }, 'read models rebuilt from the log');
  return summary;
};

/** A process that may not rebuild the read models (the CLI) found read models to build. */
export class ReadModelsToBuildError extends Error {
  override readonly name = 'ReadModelsToBuildError';
  constructor(readonly readModels: readonly string[]) {
    super(
      `read models ${readModels.join(', ')} were added by this release and have not been built from the log yet: ` +
        'start the server (its projector builds them before it resumes) or run `chronicle replay`, then try again',
    );
  }
}
