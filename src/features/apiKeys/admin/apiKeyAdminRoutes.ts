import Router from '@koa/router';
import type { Middleware } from 'koa';
import * as E from 'fp-ts/lib/Either.js';
import { issueApiKey } from '../application/issueApiKey.js';
import { revokeApiKey } from '../application/revokeApiKey.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { ReadModelProgress } from '../../../application/subscriptions/ReadModelProgress.js';
import { validateIssueApiKey } from '../domain/apiKeyInput.js';
import { apiKeyNameOf, apiKeysProjection, type ApiKeyDoc } from '../readModels/apiKeysProjection.js';
import { companiesProjection, type CompanyDoc } from '../../companies/index.js';
import type { AdminResource } from '../../../http/AdminResource.js';
import { adminMetadata } from '../../../http/adminMetadata.js';
import { apiKeyHttpError } from './apiKeyHttpErrors.js';
import { afterWrite } from '../../../http/middleware/consistentReads.js';
import type { StoredBodyCodec } from '../../../http/middleware/idempotency.js';
import { adminApiKeys as adminApiKeysOpenApi } from './apiKeysAdminOpenApi.js';
import { decodeListParams, pageMeta, validationFailed } from '../../../http/query/listQuery.js';
import { knownCompany } from '../../companies/index.js';

export interface AdminApiKeyRoutesDeps {
  readonly companies: DocumentCollection<CompanyDoc>;
  readonly keys: DocumentCollection<ApiKeyDoc>;
  readonly commands: CommandDeps;
  readonly progress: ReadModelProgress;
  readonly readYourWritesTimeoutMs: number;
  readonly idempotency: Middleware;
}

/** A key as the admin API lists it: never the key or its hash. */
const listedKey = (doc: ApiKeyDoc) => ({
  id: doc.id,
  name: apiKeyNameOf(doc),
  type: doc.type,
  permissions: doc.permissions,
  createdAt: doc.createdAt,
  expiresAt: doc.expiresAt,
  revokedAt: doc.revokedAt,
  hint: doc.keyHint,
});

/**
 * A created key's response as `Idempotency-Key` keeps it: without the key, which
 * is stored nowhere (only its hash is). A replay answers `key: null`: the key was
 * shown once; whoever lost it revokes the key by its id and makes another.
 */
export const keyShownOnce: StoredBodyCodec = {
  store: (body) => {
    const { data, ...rest } = body as { data: Record<string, unknown> };
    return { ...rest, data: { ...data, key: null } };
  },
  replay: async (stored) => stored,
};

/** A company's API keys: issue (the key shown once), list (hints only), revoke. */
export const adminApiKeyRoutes = (deps: AdminApiKeyRoutesDeps): Router => {
  const router = new Router();
  const lookup = { companies: deps.companies, eventStore: deps.commands.eventStore };
  const company = (id: string) => knownCompany(lookup, id);

  router.post('/admin/companies/:id/keys', deps.idempotency, async (ctx) => {
    const companyId = await company(ctx.params.id!);
    const fields = validateIssueApiKey(ctx.request.body);
    if (E.isLeft(fields)) throw apiKeyHttpError(fields.left);
    const { name, type, permissions, expiresAt } = fields.right;
    const issued = await issueApiKey(deps.commands, {
      companyId,
      name,
      type,
      permissions,
      expiresAt: expiresAt === undefined || expiresAt === null ? null : new Date(expiresAt),
      metadata: adminMetadata(ctx.state),
    });
    if (E.isLeft(issued)) {
      if (issued.left.kind === 'ApiKeyAlreadyIssued' || issued.left.kind === 'ApiKeyNotFound' || issued.left.kind === 'ApiKeyAlreadyRevoked') {
        throw new Error(`issueApiKey refused a new key: ${issued.left.kind}`);
      }
      throw apiKeyHttpError(issued.left);
    }
    const key = issued.right;
    await afterWrite(ctx, deps.progress, key.position, deps.readYourWritesTimeoutMs);
    ctx.status = 201;
    ctx.body = {
      success: true,
      data: {
        id: key.keyId,
        key: key.key,
        name: key.name,
        type: key.type,
        permissions: key.permissions,
        createdAt: key.createdAt,
        expiresAt: key.expiresAt,
        hint: key.keyHint,
      },
    };
  });

  router.get('/admin/companies/:id/keys', async (ctx) => {
    const companyId = await company(ctx.params.id!);
    const params = decodeListParams(ctx.query, {});
    if (E.isLeft(params)) throw validationFailed(params.left);
    const { page, limit } = params.right;
    const result = await deps.keys.list({ companyId, filters: [], page, limit, order: 'asc' });
    ctx.body = { success: true, data: result.items.map(listedKey), meta: pageMeta(page, limit, result.total) };
  });

  router.delete('/admin/companies/:id/keys/:keyId', async (ctx) => {
    const companyId = await company(ctx.params.id!);
    const keyId = ctx.params.keyId!;
    const revoked = await revokeApiKey(deps.commands, { keyId, companyId, metadata: adminMetadata(ctx.state) });
    if (E.isLeft(revoked)) {
      const refusal = revoked.left;
      switch (refusal.kind) {
        case 'ApiKeyAlreadyRevoked':
          // Revoked already: nothing to change, the answer of the first revocation (a retried DELETE is safe).
          ctx.body = { success: true, data: { id: keyId, revokedAt: refusal.revokedAt } };
          return;
        case 'ApiKeyNotFound':
          throw apiKeyHttpError(refusal);
        default:
          throw new Error(`revokeApiKey refused: ${refusal.kind}`);
      }
    }
    await afterWrite(ctx, deps.progress, revoked.right.position, deps.readYourWritesTimeoutMs);
    ctx.body = { success: true, data: { id: keyId, revokedAt: revoked.right.revokedAt } };
  });

  return router;
};

/** `/admin/companies/:id/keys`: a company's keys for the customer API. */
export const adminApiKeysResource: AdminResource = {
  openapi: adminApiKeysOpenApi,
  routes: (admin) => [
    adminApiKeyRoutes({
      companies: admin.readModels.collection(companiesProjection),
      keys: admin.readModels.collection(apiKeysProjection),
      commands: admin.commands,
      ...admin.readYourWrites,
      idempotency: admin.idempotency('POST /admin/companies/:id/keys', keyShownOnce),
    }),
  ],
};
