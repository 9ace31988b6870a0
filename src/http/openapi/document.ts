import { componentResponses, schemas as commonSchemas, securitySchemes, serviceUnavailable, type ApiModule } from './common.js';
import type { ApiResource } from '../ApiResource.js';
import { system } from './system.js';
import { idempotencyModule } from './idempotency.js';
import { conditionalModule } from './conditional.js';
import type { JsonSchema, OpenApiDocument, PathItemObject } from './types.js';

/**
 * Chronicle's OpenAPI 3.1 document: the contract the routes implement and the
 * HTTP tests check every response against (`test/support/openApi.ts`). Schemas are
 * JSON Schema draft 2020-12 (OpenAPI 3.1's dialect) under `components.schemas`.
 *
 * Assembled from the service's own paths (`system.ts`), each resource's part (the
 * resources the registry of features lists, each declaring its routes and its
 * part together) and the parts every creating or conditional route shares; the
 * shared building blocks and schemas live in `common.ts`.
 */

/** Merges records, refusing a name two parts both define (one would silently hide the other). */
const merge = <T>(what: string, parts: readonly Readonly<Record<string, T>>[]): Record<string, T> => {
  const merged: Record<string, T> = {};
  for (const part of parts) {
    for (const [name, value] of Object.entries(part)) {
      if (Object.hasOwn(merged, name)) throw new Error(`OpenAPI document: ${what} ${name} is defined twice`);
      merged[name] = value;
    }
  }
  return merged;
};

/** Methods of the operations: each authenticated one may meet a temporary outage (503). */
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * Adds the 503 of a temporary outage to every authenticated operation: a process
 * still starting (every operation), or a write that cannot be taken now (storage
 * full, a busy store, a record changing under it).
 */
const withOutage = (item: PathItemObject): PathItemObject => {
  const out: PathItemObject = { ...item };
  for (const method of METHODS) {
    const operation = item[method];
    if (operation?.security && operation.security.length > 0) {
      out[method] = { ...operation, responses: { ...operation.responses, '503': serviceUnavailable } };
    }
  }
  return out;
};

const INFO_DESCRIPTION = `
The external HTTP/JSON API of the customer platform: contacts, deals, AI agents,
REST-hook webhooks and polling triggers, and the audit trail (an entity's history,
its state at an instant, the company's event feed). Every change is recorded as an
immutable event; reads come from read models that follow the event log.

**Authentication.** \`Authorization: Bearer <API_KEY>\` on every endpoint except
\`/health\`, \`/ready\`, \`/metrics\` (the operator's own token, when one is set),
\`/openapi.json\` and \`/docs\`. Each operation names the permission it needs
(\`x-required-permission\`).

**Rate limits, per API key.** Requests per UTC hour (the window resets at the top
of every hour) and per UTC day (resets at midnight UTC), and requests in flight at
once. Every request counts, refused ones included. Every authenticated response
carries \`X-RateLimit-{Hourly,Daily}-{Limit,Remaining,Reset}\`, where *Reset* is
the end of the window in Unix epoch seconds. Over a limit: 429 with \`Retry-After\`.

**Read your writes.** A write answers once its own read models are up to date, and
returns its log position in \`X-Log-Position\`; send it as \`X-Min-Log-Position\`
on a read to wait for it on any instance.

**Errors** are \`{success: false, error, message?, code?, details?, timestamp}\`,
with case-specific fields. Every response carries \`X-Request-Id\`.
`.trim();

/** The OpenAPI 3.1 document of the API served under `basePath`, with `resources`. */
export const openApiDocument = (basePath: string, resources: readonly ApiResource[]): OpenApiDocument => {
  const modules: readonly ApiModule[] = [system, ...resources.map((resource) => resource.openapi), idempotencyModule, conditionalModule];
  const paths: Record<string, PathItemObject> = Object.fromEntries(
    Object.entries(merge('path', modules.map((m) => m.paths))).map(([path, item]) => [path, withOutage(item)]),
  );
  const schemas: Record<string, JsonSchema> = merge('schema', [commonSchemas, ...modules.map((m) => m.schemas)]);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Chronicle external API',
      version: '1.0.0',
      summary: 'Contacts, deals, agents, webhooks and polling triggers of the customer platform.',
      description: INFO_DESCRIPTION,
    },
    servers: [{ url: basePath || '/', description: 'This server' }],
    security: [{ bearerAuth: [] }],
    tags: modules.flatMap((m) => m.tags),
    paths,
    components: {
      schemas,
      responses: componentResponses,
      securitySchemes,
    },
  };
};
