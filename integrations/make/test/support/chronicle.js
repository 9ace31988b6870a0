'use strict';

// The same real Chronicle the Zapier integration's tests start (the root's built server on
// 127.0.0.1, temporary DATA_DIR, WEBHOOK_ALLOW_PRIVATE_TARGETS=true) and the same local receiver.
const { startChronicle, startReceiver, waitFor } = require('../../../zapier/test/support/chronicle');

const ALL = 'contacts:read,contacts:write,deals:read,deals:write,webhooks:read,webhooks:write';

/** A key of type `make`, as an integrator would make one for the Make app; ready once the server accepts it. */
const makeKey = async (chronicle, companyId = chronicle.companyId) => {
  const { key } = await chronicle.cli('keys', 'create', '--company', companyId, '--type', 'make', '--permissions', ALL);
  await waitFor(
    async () => (await fetch(`${chronicle.baseUrl}/test`, { headers: { Authorization: `Bearer ${key}` } })).status === 200,
    10_000,
    'the server to accept the new key',
  );
  return key;
};

module.exports = { startChronicle, startReceiver, waitFor, makeKey };
