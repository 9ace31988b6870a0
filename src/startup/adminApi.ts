import { ADMIN_RESOURCES } from '../features/index.js';
import type { CompanyExports } from '../application/companyExport/CompanyExports.js';
import type { AdminContext } from '../http/AdminResource.js';
import type { AdminApiDeps } from '../http/createApp.js';
import { authenticateAdmin } from '../http/middleware/authenticateAdmin.js';
import { adminTokenScope, idempotency } from '../http/middleware/idempotency.js';
import { ADMIN_TOKEN_SUBJECT, rateLimit } from '../http/middleware/rateLimit.js';
import { systemClock, type Clock } from '../shared/Clock.js';
import { newId } from '../shared/ids.js';
import { adminTokensProjection, freshAdminTokenVerifier } from '../features/adminTokens/index.js';
import type { Config } from '../config.js';
import type { FailedCredentials } from '../application/credentials/FailedCredentials.js';
import type { Logger } from '../application/ports/Logger.js';
import type { LoopHealth } from '../application/subscriptions/LoopHealth.js';
import { credentialFreshness } from './credentialFreshness.js';
import type { ReadSide } from './readSide.js';
import type { Stores } from './Stores.js';
import type { PersonErasure } from '../application/personalData/PersonErasure.js';
import { companyDataEraserOf } from './companyErasure.js';

/** What the admin API is built from: the start-up's parts (see `AppParts`). */
export interface AdminApiParts {
  readonly config: Config;
  readonly stores: Stores;
  readonly readSide: ReadSide;
  /** True until the start completes: admin routes answer 503 `STARTING`. */
  readonly starting: () => boolean;
  readonly health: LoopHealth;
  readonly logger: Logger;
  /** Default the system's. */
  readonly clock?: Clock;
  /** The companies' exports this process writes (stopped before the stores close). */
  readonly exports: CompanyExports;
}

/**
 * The admin API's routes (`/admin`, every admin resource of the registry), each
 * behind an admin token, the admin rate limits (the customer API's counters,
 * judged with ADMIN_RATE_LIMIT_*, keyed by token) and the JSON body. Refused
 * tokens count in `failedCredentials`, with the API's keys and the console's.
 * `erasure` is the customer API's (`ApiContext`): the same steps for every erasure.
 */
export const adminApi = (
  parts: AdminApiParts,
  progress: NonNullable<ReadSide['progress']>,
  erasure: PersonErasure,
  failedCredentials?: FailedCredentials,
): AdminApiDeps => {
  const { config, stores } = parts;
  const { eventStore, readModels } = stores;
  const clock = parts.clock ?? systemClock;
  const readYourWrites = { progress, readYourWritesTimeoutMs: config.readYourWritesTimeoutMs };
  const keys = { store: stores.idempotency, clock, ...readYourWrites };
  const commands = { eventStore, newId, clock };
  const admin: AdminContext = {
    commands,
    readModels,
    readYourWrites,
    erasure,
    companyDeletion: { data: companyDataEraserOf(stores, erasure, commands), retentionMs: config.deletedCompaniesRetentionDays * 86_400_000 },
    exports: parts.exports,
    webhookSecrets: stores.webhookSecrets,
    idempotency: (route, codec) => idempotency(keys, route, codec, adminTokenScope),
    console: { publicUrl: config.console.publicUrl, basePath: config.basePath, sessions: stores.consoleSessions },
  };
  // A token issued or revoked a moment ago (by the CLI, in another process) is answered as the log has it.
  const verifyAdminToken = freshAdminTokenVerifier({
    tokens: readModels.collection(adminTokensProjection),
    ...credentialFreshness(parts, progress),
  });
  const reports = { health: parts.health, logger: parts.logger.child({ role: 'rate-limits' }) };
  return {
    authenticate: authenticateAdmin(verifyAdminToken, clock, failedCredentials),
    starting: parts.starting,
    rateLimit: rateLimit(stores.rateLimits.withLimits(config.adminRateLimit), clock, reports, ADMIN_TOKEN_SUBJECT),
    ...readYourWrites,
    routers: ADMIN_RESOURCES.flatMap((resource) => resource.routes(admin)),
  };
};
