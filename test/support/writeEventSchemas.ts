// `npm run event-schemas:update`: rewrites test/fixtures/event-schemas.json from the
// codecs the registry's aggregates store. Run it after adding a new event type, or
// after adding a version of one (with its upcaster and the golden log of the release
// before), never to accept a changed schema: the snapshot is what keeps a released
// version's schema from changing.
import { EVENT_SCHEMAS_FILE, writeEventSchemas } from './eventSchemas.js';

writeEventSchemas();
process.stdout.write(`wrote ${EVENT_SCHEMAS_FILE}\n`);
