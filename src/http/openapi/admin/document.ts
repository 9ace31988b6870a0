import { idempotencyModule } from '../idempotency.js';
import type { DocumentSpec } from '../document.js';
import { adminSchemas, adminSecuritySchemes, adminServiceUnavailable } from './common.js';
import { adminSystem } from './system.js';

const DESCRIPTION = `
The platform's own API: it provisions its customers, each a company, with their
API keys, users and AI agents. It is for the platform's backend, never for a
browser or a customer: an admin token reaches every company.

**Authentication.** \`Authorization: Bearer <ADMIN_TOKEN>\` on every endpoint except
\`/admin/openapi.json\` and \`/admin/docs\`. Admin tokens (\`chradm_…\`) are made and
revoked with \`npm run chronicle -- admin-tokens\`; a customer's API key is refused here (401),
and an admin token on the customer API.

**Rate limits, per admin token** (\`ADMIN_RATE_LIMIT_HOURLY\`, \`…_DAILY\`,
\`…_CONCURRENT\`): the same windows, headers and 429 as the customer API's.

**Idempotency.** Every creating POST takes \`Idempotency-Key\`, scoped to the admin
token. **Read your writes**, **errors** and \`X-Request-Id\`: as on the customer API.

**Audit.** Every change made here is recorded with \`source: admin\` and the admin
token's id (never the token) in its events' metadata.
`.trim();

/** The admin API's document: `/admin/openapi.json`. */
export const adminApiSpec: DocumentSpec = {
  info: {
    title: 'Chronicle admin API',
    version: '1.0.0',
    summary: "The platform's API: companies, their API keys, users and agents.",
    description: DESCRIPTION,
  },
  security: [{ adminToken: [] }],
  securitySchemes: adminSecuritySchemes,
  before: [adminSystem, { tags: [], paths: {}, schemas: adminSchemas }],
  after: [idempotencyModule],
  outage: adminServiceUnavailable,
};
