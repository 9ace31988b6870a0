import Router from '@koa/router';
import * as E from 'fp-ts/lib/Either.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { DocumentCollection } from '../../../application/ports/ReadModelStore.js';
import type { WebhookSecretStore } from '../../../application/ports/WebhookSecretStore.js';
import type { ReadModelProgress } from '../../../application/subscriptions/ReadModelProgress.js';
import type { AdminResource } from '../../../http/AdminResource.js';
import { adminMetadata } from '../../../http/adminMetadata.js';
import { toHttpError } from '../../../http/errorTable.js';
import { HttpError } from '../../../http/HttpError.js';
import { afterWrite } from '../../../http/middleware/consistentReads.js';
import { generateWebhookSecret } from '../../../shared/webhookSecret.js';
import { companiesProjection, knownCompany, type CompanyDoc } from '../../companies/index.js';
import { rotateWebhookSecret } from '../application/rotateWebhookSecret.js';
import { validateRotate } from '../domain/rotateInput.js';
import { adminWebhooksOpenApi } from './webhooksAdminOpenApi.js';

export interface AdminWebhookRoutesDeps {
  readonly companies: DocumentCollection<CompanyDoc>;
  readonly commands: CommandDeps;
  readonly secrets: Pick<WebhookSecretStore, 'get' | 'put'>;
  readonly progress: ReadModelProgress;
  readonly readYourWritesTimeoutMs: number;
  /** New signing secrets; default `generateWebhookSecret`. */
  readonly newSecret?: () => string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const subscriptionNotFound = (): HttpError =>
  new HttpError(404, 'Webhook subscription not found', 'No active webhook subscription with this id exists in this company.');

/** A company's webhook subscriptions, for the platform: rotating a signing secret (as `POST /webhooks/:id/rotate-secret` does). */
export const adminWebhookRoutes = (deps: AdminWebhookRoutesDeps): Router => {
  const router = new Router();
  const lookup = { companies: deps.companies, eventStore: deps.commands.eventStore };
  const newSecret = deps.newSecret ?? generateWebhookSecret;

  router.post('/admin/companies/:id/webhooks/:subscriptionId/rotate-secret', async (ctx) => {
    const companyId = await knownCompany(lookup, ctx.params.id!);
    const rawId = ctx.params.subscriptionId!;
    if (!UUID.test(rawId)) throw subscriptionNotFound();
    const input = validateRotate(ctx.request.body);
    if (E.isLeft(input)) throw toHttpError(input.left);
    const subscriptionId = rawId.toLowerCase();
    const rotated = await rotateWebhookSecret(
      { ...deps.commands, secrets: deps.secrets },
      { subscriptionId, companyId, overlapHours: input.right.overlapHours, secret: newSecret(), metadata: adminMetadata(ctx.state) },
    );
    if (E.isLeft(rotated)) throw subscriptionNotFound();
    await afterWrite(ctx, deps.progress, rotated.right.position, deps.readYourWritesTimeoutMs);
    const { secret, previousSecretExpiresAt } = rotated.right;
    ctx.body = { success: true, data: { id: subscriptionId, secret, previousSecretExpiresAt } };
  });

  return router;
};

/** `/admin/companies/:id/webhooks`: a company's webhook subscriptions. */
export const adminWebhooksResource: AdminResource = {
  openapi: adminWebhooksOpenApi,
  routes: (admin) => [
    adminWebhookRoutes({
      companies: admin.readModels.collection(companiesProjection),
      commands: admin.commands,
      secrets: admin.webhookSecrets,
      ...admin.readYourWrites,
    }),
  ],
};
