// A read-model thread for tests (see `ThreadedReadModelStore`): the contract's projections,
// and a batch whose checkpoint is named `crash-…` ends the thread before it is applied.
import { parentPort } from 'node:worker_threads';
import type { Projection, ReadModelDocument } from '../../src/application/ports/ReadModelStore.js';
import { serveReadModelBatches } from '../../src/adapters/sqlite/readModelThread.js';
import { CONTRACT_PROJECTIONS } from '../contract/readModelStore.contract.js';

parentPort?.on('message', (batch: { checkpoint: string }) => {
  if (batch.checkpoint.startsWith('crash-')) process.exit(7);
});
serveReadModelBatches(CONTRACT_PROJECTIONS as unknown as readonly Projection<ReadModelDocument>[]);
