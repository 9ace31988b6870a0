// `npm run snapshots:update`: rewrites test/fixtures/snapshots/ (the OpenAPI documents,
// every CLI command's --help, every console page) from the code. Run it after a change
// meant to change what users see, and review the difference before committing it.
import { relative } from 'node:path';
import { SNAPSHOTS_DIR, writeSnapshots } from './behaviourSnapshots.js';

const written = await writeSnapshots();
process.stdout.write(`wrote ${written.length} snapshots in ${relative(process.cwd(), SNAPSHOTS_DIR)}\n`);
