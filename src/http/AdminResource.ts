import type { Middleware } from 'koa';
import type { ConsoleSessionStore } from '../application/ports/ConsoleSessionStore.js';
import type { ApiContext, ApiResource } from './ApiResource.js';
import type { CompanyDataEraser } from '../application/personalData/CompanyDataEraser.js';
import type { CompanyExports } from '../application/companyExport/CompanyExports.js';
import type { WebhookSecretStore } from '../application/ports/WebhookSecretStore.js';

/**
 * Everything an admin resource's routes may use: the customer API's context
 * without the webhooks but their secrets (its `erasure` the same one), and `Idempotency-Key`
 * scoped to the caller's admin token. Built once by the start-up and handed to every admin resource.
 */
export interface AdminContext extends Pick<ApiContext, 'commands' | 'readModels' | 'erasure'> {
  /** Every admin write answers once its read models applied it, waiting at most this long. */
  readonly readYourWrites: Omit<ApiContext['readYourWrites'], 'answeredWrites'>;
  /**
   * Where console links point: CONSOLE_PUBLIC_URL (undefined: the admin request's own origin), and BASE_PATH;
   * and the console's sessions, which the platform may end.
   */
  readonly console: { readonly publicUrl: string | undefined; readonly basePath: string; readonly sessions: Pick<ConsoleSessionStore, 'endAll'> };
  /** A company's deletion: what forgets its data, and how long a deletion waits (DELETED_COMPANIES_RETENTION_DAYS). */
  readonly companyDeletion: { readonly data: CompanyDataEraser; readonly retentionMs: number };
  /** The webhook signing secrets (a rotation writes them; nothing of the admin API reads one back). */
  readonly webhookSecrets: Pick<WebhookSecretStore, 'get' | 'put'>;
  /** Companies' exports: asked for, followed, downloaded. */
  readonly exports: CompanyExports;
  /** `Idempotency-Key` on the creating route `route` (`POST /admin/companies/:id/keys`), its body kept through `codec` when given. */
  idempotency(route: string, codec?: Parameters<ApiContext['idempotency']>[1]): Middleware;
}

/**
 * One resource of the admin API, declared as customer resources are: its routes
 * (under `/admin`, behind the admin token, its rate limit and the JSON body) and
 * its part of the admin API's OpenAPI document. Features list them in
 * `adminResources`; adding an admin route to a feature is adding its resource there.
 */
export type AdminResource = ApiResource<AdminContext>;
