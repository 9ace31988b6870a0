import { componentResponses, schemas as commonSchemas, securitySchemes, serviceUnavailable, type ApiModule } from './common.js';
import { system } from './system.js';
import { idempotencyModule } from './idempotency.js';
import { conditionalModule } from './conditional.js';
import type { JsonSchema, OpenApiDocument, PathItemObject, ResponseObject } from './types.js';

/**
 * Chronicle's OpenAPI 3.1 documents, the customer API's (`/openapi.json`) and the
 * admin API's (`/admin/openapi.json`, its spec in `admin/document.ts`): the
 * contracts the routes implement and the HTTP tests check every response against
 * (`test/support/openApi.ts`). Schemas are JSON Schema draft 2020-12 (OpenAPI
 * 3.1's dialect) under `components.schemas`.
 *
 * Each is assembled from the service's own paths (`system.ts`), each resource's
 * part (the resources the registry of features lists, each declaring its routes
 * and its part together) and the parts several routes share; the shared building
 * blocks and schemas live in `common.ts`.
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
 * Adds the 503 of a temporary outage (`outage`) to every authenticated
 * operation: a process still starting (every operation), or a write that cannot
 * be taken now (storage full, a busy store, a record changing under it).
 */
const withOutage = (item: PathItemObject, outage: ResponseObject): PathItemObject => {
  const out: PathItemObject = { ...item };
  for (const method of METHODS) {
    const operation = item[method];
    if (operation?.security && operation.security.length > 0) {
      out[method] = { ...operation, responses: { ...operation.responses, '503': outage } };
    }
  }
  return out;
};

/** What makes one API's document besides its resources: its description, credentials, and the parts around the resources'. */
export interface DocumentSpec {
  readonly info: OpenApiDocument['info'];
  readonly security: OpenApiDocument['security'];
  readonly securitySchemes: OpenApiDocument['components']['securitySchemes'];
  /** Parts before the resources' (the service's own paths) and after them (what several operations share). */
  readonly before: readonly ApiModule[];
  readonly after: readonly ApiModule[];
  /** The 503 every authenticated operation may answer. */
  readonly outage: ResponseObject;
}

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

**Read your writes.** A create (POST /contacts, POST /deals) answers once it is
durable, and the next reads of its company on the same instance wait for it; every
other write answers once its own read models are up to date. Every write returns its
log position in \`X-Log-Position\`; send it as \`X-Min-Log-Position\` on a read to
wait for it on any instance.

**Errors** are \`{success: false, error, message?, code?, details?, timestamp}\`,
with case-specific fields. Every response carries \`X-Request-Id\`.
`.trim();

/** The customer API's document: `/openapi.json`. */
export const customerApiSpec: DocumentSpec = {
  info: {
    title: 'Chronicle external API',
    version: '1.0.0',
    summary: 'Contacts, deals, agents, webhooks and polling triggers of the customer platform.',
    description: INFO_DESCRIPTION,
  },
  security: [{ bearerAuth: [] }],
  securitySchemes,
  before: [system],
  after: [idempotencyModule, conditionalModule],
  outage: serviceUnavailable,
};

/** The OpenAPI 3.1 document of an API (the customer API unless `spec` says another) served under `basePath`, with `resources`. */
export const openApiDocument = (
  basePath: string,
  resources: readonly { readonly openapi: ApiModule }[],
  spec: DocumentSpec = customerApiSpec,
): OpenApiDocument => {
  const modules: readonly ApiModule[] = [...spec.before, ...resources.map((resource) => resource.openapi), ...spec.after];
  const paths: Record<string, PathItemObject> = Object.fromEntries(
    Object.entries(merge('path', modules.map((m) => m.paths))).map(([path, item]) => [path, withOutage(item, spec.outage)]),
  );
  const schemas: Record<string, JsonSchema> = merge('schema', [commonSchemas, ...modules.map((m) => m.schemas)]);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: spec.info,
    servers: [{ url: basePath || '/', description: 'This server' }],
    security: spec.security,
    tags: modules.flatMap((m) => m.tags),
    paths,
    components: {
      schemas,
      responses: componentResponses,
      securitySchemes: spec.securitySchemes,
    },
  };
};
