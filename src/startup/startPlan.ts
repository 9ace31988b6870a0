import type { Config } from '../config.js';

/** Where the log is kept: every other store follows from it and from MONGODB_URL. */
export type LogEngine = 'sqlite' | 'postgres' | 'eventstoredb';

/**
 * How the read models are kept: in PostgreSQL or MongoDB beside the other stores;
 * embedded, in DATA_DIR's SQLite file, their batches on a thread of their own
 * (`sqlite-thread`, the API and the projections in one process with
 * READ_MODEL_THREAD), sharing a commit every 20 ms (`sqlite-shared-commit`, the same
 * without the thread), or each batch committed alone (`sqlite`, a process that does
 * not run both); or in memory (READ_MODELS=memory).
 */
export type ReadModelsPlan = 'postgres' | 'mongodb' | 'sqlite-thread' | 'sqlite-shared-commit' | 'sqlite' | 'memory';

/**
 * Where this process counts its rate limits: in the shared database; asked of the
 * supervisor of API_WORKERS (`supervisor`); in DATA_DIR's rate-limits file, shared by
 * the API processes beside a separate projector (`sqlite-file`); or in memory, when
 * it is the only API process on its DATA_DIR (`memory`).
 */
export type RateLimitsPlan = 'postgres' | 'mongodb' | 'supervisor' | 'sqlite-file' | 'memory';

/** What a start starts, decided from the configuration alone (see `startPlan`). */
export interface StartPlan {
  /** What this process runs (RUN_API, RUN_PROJECTIONS, RUN_WEBHOOKS, which a supervisor sets for each part it starts). */
  readonly roles: Config['roles'];
  /**
   * With API_WORKERS above 1 and this process not started by a supervisor: it
   * supervises `apiWorkers` API processes on one port, a `background` process running
   * the projections and webhooks when either role is on, and counts the workers' rate
   * limits in its memory (`rateLimits: 'memory'`) unless a shared database does. Null:
   * this process serves itself.
   */
  readonly supervisor: { readonly apiWorkers: number; readonly background: boolean; readonly rateLimits: 'memory' | null } | null;
  readonly stores: { readonly log: LogEngine; readonly readModels: ReadModelsPlan; readonly rateLimits: RateLimitsPlan };
  /**
   * A projector alone (RUN_PROJECTIONS without RUN_API) on in-memory read models: no
   * process reads what it projects, and the start says so (config.ts refuses
   * READ_MODELS=memory without both roles; a configuration built by hand may not).
   */
  readonly unreadReadModels: boolean;
  /** Webhook attempts on `webhookDeliveryThreads` threads of their own (0: on the event loop; null: no webhooks role). */
  readonly webhookDeliveryThreads: number | null;
}

/** What the process is, beside its configuration: one started by API_WORKERS' supervisor, and as which part. */
export interface ProcessPart {
  readonly supervised: 'api' | 'background' | null;
}

const logEngineOf = (config: Config): LogEngine => (config.postgresUrl ? 'postgres' : config.eventStoreUrl ? 'eventstoredb' : 'sqlite');

const readModelsOf = (config: Config, roles: Config['roles']): ReadModelsPlan => {
  if (config.postgresUrl) return 'postgres';
  if (config.mongoUrl) return 'mongodb';
  if (config.readModels === 'memory') return 'memory';
  if (!(roles.api && roles.projections)) return 'sqlite';
  return config.readModelThread ? 'sqlite-thread' : 'sqlite-shared-commit';
};

const rateLimitsOf = (config: Config, roles: Config['roles'], part: ProcessPart): RateLimitsPlan => {
  if (config.postgresUrl) return 'postgres';
  if (config.mongoUrl) return 'mongodb';
  if (part.supervised === 'api') return 'supervisor';
  return roles.api && !roles.projections ? 'sqlite-file' : 'memory';
};

/**
 * The start-up plan: which roles this process runs, whether it supervises API
 * workers, which store keeps what, and on which threads. A pure function of the
 * configuration and of the part a supervisor gave the process; the start-up's
 * modules read their decisions here instead of each deciding from the configuration.
 */
export const startPlan = (config: Config, part: ProcessPart = { supervised: null }): StartPlan => {
  const { roles } = config;
  const stores = { log: logEngineOf(config), readModels: readModelsOf(config, roles), rateLimits: rateLimitsOf(config, roles, part) };
  const unreadReadModels = roles.projections && !roles.api && stores.readModels === 'memory';
  if (config.apiWorkers > 1 && part.supervised === null) {
    return {
      roles,
      supervisor: {
        apiWorkers: config.apiWorkers,
        background: roles.projections || roles.webhooks,
        rateLimits: config.postgresUrl || config.mongoUrl ? null : 'memory',
      },
      stores,
      unreadReadModels,
      webhookDeliveryThreads: null,
    };
  }
  return {
    roles,
    supervisor: null,
    stores,
    unreadReadModels,
    webhookDeliveryThreads: roles.webhooks ? (config.webhooks.deliveryThread ? config.webhooks.deliveryThreads : 0) : null,
  };
};
