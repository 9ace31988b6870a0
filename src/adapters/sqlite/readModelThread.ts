import { parentPort, workerData } from 'node:worker_threads';
import type { DocumentCollection, Projection, ReadModelDocument } from '../../application/ports/ReadModelStore.js';
import { SqliteReadModelStore } from './SqliteReadModelStore.js';
import type { CompactInReadModelThread, FromReadModelThread, ReadModelThreadData, ToReadModelThread } from './ThreadedReadModelStore.js';

/**
 * The read-model thread's work (see `ThreadedReadModelStore`), run by its script with
 * the release's projections: opens the read models' file on a connection of its own and
 * applies each batch it is sent, committed with its checkpoint before it answers (the
 * event loop's connection must see it then). Batches come one at a time, in the
 * projector's order. A read model's table is bound at its first batch.
 */
export const serveReadModelBatches = (projections: readonly Projection<ReadModelDocument>[]): void => {
  const port = parentPort;
  if (!port) throw new Error('The read-model thread runs as a worker thread');
  const { file } = workerData as ReadModelThreadData;
  // Each batch commits on its own (no shared commit).
  const store = SqliteReadModelStore.open(file);
  const byName = new Map(projections.map((projection) => [projection.name, projection]));
  const collections = new Map<string, DocumentCollection<ReadModelDocument>>();
  const collectionNamed = (name: string): DocumentCollection<ReadModelDocument> => {
    const bound = collections.get(name);
    if (bound) return bound;
    const projection = byName.get(name);
    if (!projection) throw new Error(`No read model named ${name} in this release`);
    const collection = store.collection(projection);
    collections.set(name, collection);
    return collection;
  };
  const answer = (id: number, error?: unknown, walTruncated?: boolean): void => {
    const said: FromReadModelThread =
      error === undefined
        ? { id, ...(walTruncated === undefined ? {} : { walTruncated }) }
        : { id, error: error instanceof Error ? error.message : String(error) };
    port.postMessage(said);
  };
  port.on('message', (message: ToReadModelThread | CompactInReadModelThread) => {
    if ('compact' in message) {
      Promise.resolve()
        .then(() => store.compact())
        .then(
          ({ walTruncated }) => answer(message.id, undefined, walTruncated),
          (error: unknown) => answer(message.id, error ?? new Error('the compaction failed')),
        );
      return;
    }
    Promise.resolve()
      .then(() => store.applyBatch(message.names.map(collectionNamed), message.events, message.checkpoint))
      .then(
        () => answer(message.id),
        (error: unknown) => answer(message.id, error ?? new Error('the batch failed')),
      );
  });
};
