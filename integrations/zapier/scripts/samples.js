'use strict';
// Writes lib/samples.json from the built server (run `npm run build` at the root first): the records
// GET /triggers/:type/sample answers while a company has none, so Zapier's samples have exactly
// the server's shapes. The integration's tests check the file against a running server.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const main = async () => {
  const dist = join(__dirname, '..', '..', '..', 'dist', 'src');
  const { deriveSampleData, sampleEventId } = await import(join(dist, 'webhooks', 'deriveSampleData.js'));
  const { WEBHOOK_EVENT_TYPES } = await import(join(dist, 'domain', 'webhooks', 'eventTypes.js'));
  const samples = { triggers: {}, contact: deriveSampleData('contact.created'), deal: deriveSampleData('deal.created') };
  for (const type of WEBHOOK_EVENT_TYPES) samples.triggers[type] = { ...deriveSampleData(type), eventId: sampleEventId(type) };
  writeFileSync(join(__dirname, '..', 'lib', 'samples.json'), `${JSON.stringify(samples, null, 2)}\n`);
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
