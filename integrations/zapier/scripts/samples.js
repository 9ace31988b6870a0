'use strict';
// Writes lib/samples.json from the built server (run `npm run build` at the root first): the records
// GET /triggers/:type/sample answers while a company has none, so Zapier's samples have exactly
// the server's shapes. The integration's tests check the file against a running server.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const main = async () => {
  const dist = join(__dirname, '..', '..', '..', 'dist', 'src');
  const { WEBHOOK_EVENTS } = await import(join(dist, 'features', 'index.js'));
  const data = (type) => WEBHOOK_EVENTS.sampleOf(type).data;
  const samples = { triggers: {}, contact: data('contact.created'), deal: data('deal.created') };
  for (const type of WEBHOOK_EVENTS.types) {
    const { data: record, eventId } = WEBHOOK_EVENTS.sampleOf(type);
    samples.triggers[type] = { ...record, eventId };
  }
  writeFileSync(join(__dirname, '..', 'lib', 'samples.json'), `${JSON.stringify(samples, null, 2)}\n`);
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
