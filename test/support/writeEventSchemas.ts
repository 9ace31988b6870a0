// `npm run event-schemas:update`: rewrites test/fixtures/event-schemas.json from the
// codecs of src/application/versioning/storedEventTypes.ts. Run it only after adding
// a version (with its upcaster and the golden log of the release before): the
// snapshot is what keeps a released version's schema from changing.
import { EVENT_SCHEMAS_FILE, writeEventSchemas } from './eventSchemas.js';

writeEventSchemas();
process.stdout.write(`wrote ${EVENT_SCHEMAS_FILE}\n`);
