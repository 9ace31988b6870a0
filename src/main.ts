import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Config } from './config.js';
import type { EventStore } from './application/ports/EventStore.js';
import type { ReadModelStore } from './application/ports/ReadModelStore.js';
import type { Logger } from './application/ports/Logger.js';
import type { RateLimitCounters } from './application/ports/RateLimitCounters.js';
import { MemoryRateLimitCounters } from './adapters/memory/MemoryRateLimitCounters.js';
import { verifyApiKey } from './application/apiKeys/verifyApiKey.js';
import { bootstrapDemo, type DemoCredentials } from './application/bootstrapDemo.js';
import { rateLimit } from './http/middleware/rateLimit.js';
import { openApiRoutes } from './http/routes/openapi.js';
import { testRoutes } from './http/routes/test.js';
import { contactRoutes } from './http/routes/contacts.js';
import { dealRoutes } from './http/routes/deals.js';
import { agentRoutes } from './http/routes/agents.js';
import { triggerRoutes } from './http/routes/triggers.js';
import { eventRoutes } from './http/routes/events.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { webhookDeliveryRoutes } from './http/routes/webhookDeliveries.js';
import type { WebhookOutbox } from './application/ports/WebhookOutbox.js';
import { SqliteWebhookOutbox } from './adapters/sqlite/SqliteWebhookOutbox.js';
import { createDeliveryAgent } from './webhooks/deliveryAgent.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { unsubscribeGone } from './webhooks/dispatcherUnsubscribe.js';
import { WebhookFanOut } from './webhooks/fanOut.js';
import type { EsdbPersistentFanOutSource } from './adapters/eventstoredb/EsdbPersistentFanOutSource.js';
import { deriveWebhookEvents } from './webhooks/deriveWebhookEvents.js';
import type { DerivedWebhookEvent } from './webhooks/derivedWebhookEvent.js';
import { matchesFilters } from './webhooks/filters.js';
import { toEnvelope } from './webhooks/envelope.js';
import { newId } from './shared/ids.js';
import { apiKeyDirectoryProjection } from '../projections/apiKeys/apiKeyDirectoryProjection.js';
import { contactsProjection } from '../projections/contacts/contactsProjection.js';
import { dealsProjection } from '../projections/deals/dealsProjection.js';
import { agentsProjection } from '../projections/agents/agentsProjection.js';
import { webhookEventCollections } from '../projections/webhookEvents/webhookEventsProjection.js';
import { webhooksProjection } from '../projections/webhooks/webhooksProjection.js';
import { ProjectionRunner, READ_MODELS_CHECKPOINT, measureLag } from './application/ProjectionRunner.js';
import { CheckpointProgress, type ReadModelProgress } from './application/ReadModelProgress.js';
import { SqliteEventStore } from './adapters/sqlite/SqliteEventStore.js';
import { SqliteWebhookSecretStore } from './adapters/sqlite/SqliteWebhookSecretStore.js';
import type { WebhookSecretStore } from './webhooks/secretStore.js';
import { isRefusedAddress, lookupAllAddresses, type ResolveHost } from './webhooks/targetUrlGuard.js';
import { isIPv6 } from 'node:net';
import { SqliteReadModelStore } from './adapters/sqlite/SqliteReadModelStore.js';
import { createApp } from './http/createApp.js';
import { systemClock } from './shared/Clock.js';
import { allProjections } from '../projections/index.js';
import { ChronicleMetrics } from './ops/ChronicleMetrics.js';
import { checkReadiness } from './ops/readiness.js';
import { loadTlsFiles } from './ops/tlsFiles.js';
import { WEBHOOK_FAN_OUT_CHECKPOINT } from './webhooks/fanOut.js';

/** File of the embedded event store inside DATA_DIR. */
export const embeddedDatabaseFile = (dataDir: string): string => join(dataDir, 'chronicle.sqlite');

/** File of the embedded read models (and their checkpoint) inside DATA_DIR, apart from the log. */
export const embeddedReadModelsFile = (dataDir: string): string => join(dataDir, 'read-models.sqlite');

export interface Stores {
  readonly eventStore: EventStore;
  readonly readModels: ReadModelStore;
  /** Beside the read models: in memory, or in MongoDB so that API instances count together. */
  readonly rateLimits: RateLimitCounters;
  /** Webhook signing secrets: in the SQLite file (on the event store's connection when it is SQLite), or in MongoDB. */
  readonly webhookSecrets: WebhookSecretStore;
  /** Deliveries waiting or done: in the SQLite file, or in MongoDB beside the read models. */
  readonly webhookOutbox: WebhookOutbox;
}

/**
 * The only place that picks adapters: EventStoreDB when EVENTSTORE_URL is set,
 * else SQLite in DATA_DIR; read models in MongoDB when MONGODB_URL is set, else
 * in their own SQLite file in DATA_DIR. The real-server drivers are loaded only
 * when used.
 */
export const openStores = async (config: Config): Promise<Stores> => {
  const eventStore: EventStore = config.eventStoreUrl
    ? (await import('./adapters/eventstoredb/EventStoreDbEventStore.js')).EventStoreDbEventStore.connect(
        config.eventStoreUrl,
      )
    : SqliteEventStore.open(embeddedDatabaseFile(config.dataDir));
  if (config.mongoUrl) {
    const { MongoReadModelStore } = await import('./adapters/mongodb/MongoReadModelStore.js');
    const { MongoRateLimitCounters } = await import('./adapters/mongodb/MongoRateLimitCounters.js');
    const readModels = await MongoReadModelStore.connect(config.mongoUrl, config.mongoDb);
    const { MongoWebhookSecretStore } = await import('./adapters/mongodb/MongoWebhookSecretStore.js');
    const { MongoWebhookOutbox } = await import('./adapters/mongodb/MongoWebhookOutbox.js');
    return {
      eventStore,
      readModels,
      rateLimits: await MongoRateLimitCounters.create(readModels.database, config.rateLimit),
      webhookSecrets: new MongoWebhookSecretStore(readModels.database),
      webhookOutbox: await MongoWebhookOutbox.create(readModels.database),
    };
  }
  // Embedded: secrets and outbox in the SQLite file (sharing the event store's connection when it is SQLite).
  const sqlite = eventStore instanceof SqliteEventStore;
  const file = embeddedDatabaseFile(config.dataDir);
  return {
    eventStore,
    readModels: SqliteReadModelStore.open(embeddedReadModelsFile(config.dataDir)),
    rateLimits: new MemoryRateLimitCounters(config.rateLimit),
    webhookSecrets: sqlite ? new SqliteWebhookSecretStore(eventStore.db) : SqliteWebhookSecretStore.open(file),
    webhookOutbox: sqlite ? new SqliteWebhookOutbox(eventStore.db) : SqliteWebhookOutbox.open(file),
  };
};

/** Deliveries in flight at once (different subscriptions; each subscription has at most one). */
const DISPATCH_CONCURRENCY = 16;

/** A host resolver as the delivery agent's `lookup` wants it. */
const asLookup = (resolve: ResolveHost) => async (host: string) =>
  (await resolve(host)).map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }));

export interface ChronicleWebhooks {
  readonly fanOut: WebhookFanOut<DerivedWebhookEvent>;
  readonly dispatcher: WebhookDispatcher;
  readonly closeAgent: () => void;
}

/** How a graceful stop went. */
export interface CloseReport {
  /** False when the bound ran out: requests still in flight were cut off, or delivery attempts aborted. */
  readonly complete: boolean;
  readonly ms: number;
}

export interface Chronicle {
  /** Every process listens: resource routes with RUN_API, else only /health, /ready and /metrics. */
  readonly server: Server;
  /** The port actually listened on (PORT=0 picks a free one). */
  readonly port: number;
  readonly stores: Stores;
  readonly projections: ProjectionRunner | null;
  /** The webhook fan-out and dispatcher, when this process runs them (RUN_WEBHOOKS). */
  readonly webhooks: ChronicleWebhooks | null;
  /** The demo company and key created on an empty store (shown once), else null. */
  readonly demo: DemoCredentials | null;
  readonly metrics: ChronicleMetrics;
  /**
   * Graceful stop within `timeoutMs` (default SHUTDOWN_TIMEOUT_MS): stops accepting
   * connections and closes idle ones, lets requests in flight finish, stops the
   * webhook fan-out (its last batch and checkpoint stored) and gives delivery
   * attempts in flight the rest of the bound, then stops the projections and closes
   * the stores. What is still running when the bound is near is cut off.
   * Idempotent: every call gets the first call's outcome.
   */
  close(options?: { readonly timeoutMs?: number }): Promise<CloseReport>;
}

/** Limits on slow clients: all headers within `headersMs`, the whole request within `requestMs`. */
export interface ServerTimeouts {
  readonly headersMs: number;
  readonly requestMs: number;
  /** How often Node checks connections against those limits. */
  readonly checkEveryMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000, checkEveryMs: 1_000 };

/** Optional replacements of outside services (tests). */
export interface ChronicleDeps {
  /** Resolves webhook target hosts at subscribe; default: the system resolver (`dns.lookup`, every address). */
  readonly resolveHost?: ResolveHost;
}

export const startChronicle = async (
  config: Config,
  logger: Logger,
  timeouts: ServerTimeouts = DEFAULT_SERVER_TIMEOUTS,
  deps: ChronicleDeps = {},
): Promise<Chronicle> => {
  // Checked before anything is opened: a bad file is a configuration error (exit 2).
  const tls = config.tls ? loadTlsFiles(config.tls) : null;
  const stores = await openStores(config);
  const { eventStore, readModels, rateLimits } = stores;
  const metrics = new ChronicleMetrics({ logger: logger.child({ role: 'metrics' }), headPosition: () => eventStore.headPosition() });
  const collections = allProjections.map((projection) => readModels.collection(projection));
  await readModels.init();
  const demo = config.roles.api ? await bootstrapDemo({ eventStore, newId, clock: systemClock }) : null;

  let projections: ProjectionRunner | null = null;
  if (config.roles.projections && !config.roles.api && !readModels.durable) {
    logger.warn({ readModels: readModels.kind }, 'RUN_PROJECTIONS without RUN_API on in-memory read models: nothing will read them');
  }
  if (config.roles.projections) {
    projections = new ProjectionRunner({ eventStore, readModels, collections, logger: logger.child({ role: 'projections' }) });
    await projections.start();
  }

  // Webhooks: the fan-out follows the log from its own checkpoint (apart from the read
  // models, so a rebuild never sends anything) into the outbox; the dispatcher delivers.
  let webhooks: ChronicleWebhooks | null = null;
  let closeFanOutSource = async (): Promise<void> => undefined;
  if (config.roles.webhooks) {
    const agent = createDeliveryAgent({
      allowPrivateTargets: config.webhooks.allowPrivateTargets,
      // As many idle keep-alive sockets as deliveries in flight (the dispatcher's 16): with
      // Node's default of 4, a burst to one receiver reconnected for most deliveries.
      maxFreeSockets: DISPATCH_CONCURRENCY,
      isRefusedAddress,
      ...(deps.resolveHost ? { resolve: asLookup(deps.resolveHost) } : {}),
    });
    const dispatcher = new WebhookDispatcher({
      outbox: stores.webhookOutbox,
      send: agent.send,
      secrets: stores.webhookSecrets,
      unsubscribe: unsubscribeGone({ eventStore, newId, clock: systemClock, secrets: stores.webhookSecrets }),
      timeoutMs: config.webhooks.timeoutMs,
      retryDelaysMs: config.webhooks.retryDelaysMs,
      concurrency: DISPATCH_CONCURRENCY,
      logger: logger.child({ role: 'webhooks' }),
      onAttempt: (outcome, latencyMs) => metrics.observeAttempt(outcome, latencyMs),
    });
    const fanOutLogger = logger.child({ role: 'webhook-fan-out' });
    // On EventStoreDB the fan-out reads a persistent subscription group to $all (one
    // active consumer across instances, acked after each outbox write, never nacked);
    // embedded, the event store's checkpointed catch-up subscription (the default).
    let source: EsdbPersistentFanOutSource | undefined;
    if (config.eventStoreUrl) {
      const { EsdbPersistentFanOutSource } = await import('./adapters/eventstoredb/EsdbPersistentFanOutSource.js');
      const esdbSource = EsdbPersistentFanOutSource.connect(config.eventStoreUrl, { logger: fanOutLogger });
      closeFanOutSource = () => esdbSource.close();
      source = esdbSource;
    }
    const fanOut = new WebhookFanOut<DerivedWebhookEvent>({
      eventStore,
      ...(source ? { source } : {}),
      outbox: stores.webhookOutbox,
      derive: deriveWebhookEvents,
      matches: matchesFilters,
      toEnvelope,
      logger: fanOutLogger,
      onEnqueued: () => dispatcher.wake(),
    });
    dispatcher.start();
    await fanOut.start();
    webhooks = { fanOut, dispatcher, closeAgent: () => agent.close() };
    metrics.trackWebhooks(() => stores.webhookOutbox.depthByState());
    metrics.trackSubscription(WEBHOOK_FAN_OUT_CHECKPOINT, () => measureLag(eventStore, fanOut.position));
  }

  // Without projections in this process (RUN_PROJECTIONS=false, MongoDB), an API follows the projector's checkpoint.
  const followed =
    config.roles.api && !projections ? new CheckpointProgress(() => readModels.checkpoints.load(READ_MODELS_CHECKPOINT)) : null;
  const stopFollowing = (): void => followed?.stop();
  const projector = projections;
  const lag = projector
    ? () => projector.lag()
    : followed
      ? async () => measureLag(eventStore, await followed.refresh())
      : undefined;
  if (lag) metrics.trackSubscription(READ_MODELS_CHECKPOINT, lag);
  const readinessLogger = logger.child({ role: 'readiness' });

  /** Set when a graceful stop begins: /ready fails and responses carry `Connection: close`. */
  let stopping = false;
  // Every process serves these, whatever its roles, so that every one can be probed and scraped.
  const ops = {
    clock: systemClock,
    basePath: config.basePath,
    trustProxy: config.trustProxy,
    health: {
      eventStoreKind: eventStore.kind,
      readModelsKind: readModels.kind,
      headPosition: () => eventStore.headPosition(),
      ...(lag ? { projectionLag: lag } : {}),
    },
    ready: () =>
      checkReadiness({
        eventStore: () => eventStore.headPosition(),
        readModels: () => readModels.checkpoints.load(READ_MODELS_CHECKPOINT),
        // The lag bound applies where this process serves reads.
        ...(config.roles.api && lag ? { projectionLag: lag } : {}),
        maxLagMs: config.readyMaxLagMs,
        stopping: () => stopping,
        logger: readinessLogger,
      }),
    metrics: {
      render: () => metrics.render(),
      contentType: metrics.contentType,
      token: config.metricsToken,
      observe: (method: string, route: string, status: number, seconds: number) =>
        metrics.observeRequest(method, route, status, seconds),
    },
    draining: () => stopping,
  };

  let app: Koa;
  if (config.roles.api) {
    const runner: ReadModelProgress = projector ?? followed!;
    const directory = readModels.collection(apiKeyDirectoryProjection);
    app = createApp({
      ...ops,
      logger: logger.child({ role: 'api' }),
      publicRouters: [openApiRoutes(config.basePath)],
      api: {
        verifyApiKey: (key, now) => verifyApiKey(directory, key, now),
        rateLimit: rateLimit(rateLimits, systemClock),
        progress: runner,
        readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
        routers: [
          testRoutes(systemClock),
          contactRoutes({
            contacts: readModels.collection(contactsProjection),
            service: { eventStore, newId, clock: systemClock },
            progress: runner,
            readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
          }),
          dealRoutes({
            deals: readModels.collection(dealsProjection),
            service: { eventStore, newId, clock: systemClock },
            progress: runner,
            readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
          }),
          agentRoutes({ agents: readModels.collection(agentsProjection) }),
          triggerRoutes({ webhookEvents: webhookEventCollections(readModels) }),
          eventRoutes({
            webhookEvents: webhookEventCollections(readModels),
            appliedPosition: async () => (projections ? projections.position : followed!.refresh()),
          }),
          webhookDeliveryRoutes({
            webhooks: readModels.collection(webhooksProjection),
            outbox: stores.webhookOutbox,
            clock: systemClock,
            ...(webhooks ? { wake: () => webhooks.dispatcher.wake() } : {}),
          }),
          webhookRoutes({
            webhooks: readModels.collection(webhooksProjection),
            eventStore,
            secrets: stores.webhookSecrets,
            newId,
            clock: systemClock,
            targetUrls: { allowPrivate: config.webhooks.allowPrivateTargets, resolve: deps.resolveHost ?? lookupAllAddresses },
            progress: runner,
            readYourWritesTimeoutMs: config.readYourWritesTimeoutMs,
          }),
        ],
      },
    });
  } else {
    app = createApp({ ...ops, logger: logger.child({ role: 'ops' }) });
  }

  const handler = app.callback();
  // Slow-header and slow-body clients are cut off (408) by these limits.
  const serverOptions = {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: timeouts.checkEveryMs,
    keepAliveTimeout: 5_000,
  };
  const server: Server = tls ? createHttpsServer({ ...serverOptions, ...tls }, handler) : createHttpServer(serverOptions, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  logger.info(
    { port, tls: Boolean(tls), basePath: config.basePath, roles: config.roles },
    config.roles.api ? 'API listening' : 'listening (health, readiness and metrics only)',
  );

  /** Stops accepting connections; true when every request in flight was answered before `until`. */
  const drainHttp = async (until: number): Promise<boolean> => {
    // Also closes idle keep-alive connections at once (Node 19+); busy ones close once their response is sent.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    logger.info({ connections: await connectionCount(server) }, 'stopped accepting connections');
    if (await settlesBefore(closed, until)) return true;
    logger.warn({ connections: await connectionCount(server) }, 'shutdown: requests still in flight at the bound were cut off');
    server.closeAllConnections();
    await closed;
    return false;
  };

  /** Stops the fan-out, then the dispatcher; true when no delivery attempt had to be aborted before `until`. */
  const stopWebhooks = async (until: number): Promise<boolean> => {
    if (!webhooks) return true;
    // Resolves once the batch being stored, with its checkpoint, is committed.
    await webhooks.fanOut.stop();
    await closeFanOutSource();
    const graceMs = Math.max(0, until - Date.now());
    const aborted = !(await webhooks.dispatcher.stop(graceMs));
    webhooks.closeAgent();
    if (aborted) logger.warn({ graceMs }, 'shutdown: webhook deliveries still in flight at the bound were aborted (sent again after a restart)');
    return !aborted;
  };

  let closing: Promise<CloseReport> | null = null;
  const close = (options: { readonly timeoutMs?: number } = {}): Promise<CloseReport> =>
    (closing ??= (async () => {
      const started = Date.now();
      const budgetMs = options.timeoutMs ?? config.shutdownTimeoutMs;
      // Kept back from the draining to stop the projections and close the stores.
      const reserveMs = Math.min(1000, Math.floor(budgetMs / 4));
      const drainUntil = started + budgetMs - reserveMs;
      stopping = true;
      logger.info({ budgetMs }, 'stopping: finishing the requests and deliveries in flight');
      // HTTP and webhooks drain side by side; projections run until the requests are done,
      // since a write in flight waits for its read models.
      const [requestsDone, deliveriesDone] = await Promise.all([drainHttp(drainUntil), stopWebhooks(drainUntil)]);
      stopFollowing();
      await projections?.stop();
      await stores.webhookSecrets.close();
      await stores.webhookOutbox.close();
      await readModels.close();
      await eventStore.close();
      const report: CloseReport = { complete: requestsDone && deliveriesDone, ms: Date.now() - started };
      logger.info(report, 'stopped');
      return report;
    })());

  return { server, port, stores, projections, webhooks, demo, metrics, close };
};

const connectionCount = (server: Server): Promise<number> =>
  new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));

/** True when `work` settles before the time `until` (ms since the epoch), false when that time comes first. */
const settlesBefore = async (work: Promise<unknown>, until: number): Promise<boolean> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, until - Date.now()))));
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
};
