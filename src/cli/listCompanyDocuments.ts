import type { Config } from '../config.js';
import type { Stores } from '../startup/Stores.js';
import type { Projection, ReadModelDocument } from '../application/ports/ReadModelStore.js';
import { ProjectionRunner, READ_MODELS_CHECKPOINT } from '../application/subscriptions/ProjectionRunner.js';
import { CheckpointProgress } from '../application/subscriptions/ReadModelProgress.js';
import { silentLogger } from '../application/ports/Logger.js';
import type { CliContext } from './CliContext.js';
import { catchUpReadModels } from './catchUpReadModels.js';

const PAGE = 200;

/**
 * Every document of a company in one read model, in creation order, for a CLI
 * listing. Embedded read models (SQLite) are first brought up to the log as it
 * is now, here. MongoDB read models are kept by the server: wait (bounded) until
 * they have applied the log as it is now, so what was just created is listed.
 * In-memory read models live inside the server process: rebuild just this one
 * from the log.
 */
export const listCompanyDocuments = async <D extends ReadModelDocument>(
  context: CliContext,
  { eventStore, readModels }: Stores,
  config: Config,
  projection: Projection<D>,
  companyId: string,
): Promise<D[]> => {
  const collection = readModels.collection(projection);
  if (readModels.kind === 'sqlite') {
    // Embedded read models are a file: bring them up to the log here, whether or not a server runs.
    const { stoppedBy } = await catchUpReadModels({ eventStore, readModels });
    // Stopped at an event this release cannot read: a list without what follows it would mislead.
    if (stoppedBy) throw stoppedBy;
  } else if (readModels.durable) {
    const head = await eventStore.headPosition();
    const progress = new CheckpointProgress(() => readModels.checkpoints.load(READ_MODELS_CHECKPOINT), 50);
    if (head !== null && !(await progress.waitFor(head, config.readYourWritesTimeoutMs))) {
      context.err('warning: the read models are behind the log (is a server with RUN_PROJECTIONS running?); the list may be incomplete');
    }
    progress.stop();
  } else {
    const runner = new ProjectionRunner({ eventStore, readModels, collections: [collection], logger: silentLogger, name: `cli-${projection.name}` });
    await runner.start();
    await runner.stop();
    // Stopped at an event this release cannot read: a list without what follows it would mislead.
    if (runner.failure) throw runner.failure;
  }
  const docs: D[] = [];
  for (let page = 1; ; page++) {
    const { items, total } = await collection.list({ companyId, filters: [], page, limit: PAGE, order: 'asc' });
    docs.push(...items);
    if (items.length < PAGE || docs.length >= total) return docs;
  }
};
