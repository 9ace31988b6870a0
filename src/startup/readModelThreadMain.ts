// The read-model thread's script (see `ThreadedReadModelStore`): the release's projections.
import { serveReadModelBatches } from '../adapters/sqlite/readModelThread.js';
import { PROJECTIONS } from '../features/index.js';

serveReadModelBatches(PROJECTIONS);
