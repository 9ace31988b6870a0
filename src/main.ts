import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
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
import { MemoryReadModelStore } from './adapters/memory/MemoryReadModelStore.js';
import { createApp } from './http/createApp.js';
import { systemClock } from './shared/Clock.js';
import { allProjections } from '../projections/index.js';

/** File of the embedded event store inside DATA_DIR. */
export const embeddedDatabaseFile = (dataDir: string): string => join(dataDir, 'chronicle.sqlite');

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
 * else SQLite in DATA_DIR; MongoDB when MONGODB_URL is set, else memory. The
 * real-server drivers are loaded only when used.
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
    readModels: new MemoryReadModelStore(),
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

export interface Chronicle {
  readonly server: Server | null;
  /** The port actually listened on (PORT=0 picks a free one). */
  readonly port: number | null;
  readonly stores: Stores;
  readonly projections: ProjectionRunner | null;
  /** The webhook fan-out and dispatcher, when this process runs them (RUN_WEBHOOKS). */
  readonly webhooks: ChronicleWebhooks | null;
  /** The demo company and key created on an empty store (shown once), else null. */
  readonly demo: DemoCredentials | null;
  /** Stops accepting, lets in-flight requests finish, stops the runner, closes the stores. */
  close(): Promise<void>;
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
  const stores = await openStores(config);
  const { eventStore, readModels, rateLimits } = stores;
  const collections = allProjections.map((projection) => readModels.collection(projection));
  await readModels.init();
  const demo = config.roles.api ? await bootstrapDemo({ eventStore, newId, clock: systemClock }) : null;

  let projections: ProjectionRunner | null = null;
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
  }

  let server: Server | null = null;
  let port: number | null = null;
  let stopFollowing = (): void => undefined;
  if (config.roles.api) {
    // Without projections in this process (RUN_PROJECTIONS=false, MongoDB), follow the projector's checkpoint.
    const followed = projections ? null : new CheckpointProgress(() => readModels.checkpoints.load(READ_MODELS_CHECKPOINT));
    stopFollowing = () => followed?.stop();
    const runner: ReadModelProgress = projections ?? followed!;
    const lag = projections ? () => projections.lag() : async () => measureLag(eventStore, await followed!.refresh());
    const directory = readModels.collection(apiKeyDirectoryProjection);
    const app = createApp({
      logger: logger.child({ role: 'api' }),
      clock: systemClock,
      basePath: config.basePath,
      trustProxy: config.trustProxy,
      health: {
        eventStoreKind: eventStore.kind,
        readModelsKind: readModels.kind,
        headPosition: () => eventStore.headPosition(),
        projectionLag: lag,
      },
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
    const handler = app.callback();
    // Slow-header and slow-body clients are cut off (408) by these limits.
    const serverOptions = {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
      keepAliveTimeout: 5_000,
    };
    server = config.tls
      ? createHttpsServer(
          { ...serverOptions, cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) },
          handler,
        )
      : createHttpServer(serverOptions, handler);
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(config.port, () => resolve());
    });
    port = (listening.address() as AddressInfo).port;
    logger.info({ port, tls: Boolean(config.tls), basePath: config.basePath }, 'API listening');
  }

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      if (server) {
        const open = server;
        await new Promise<void>((resolve) => {
          open.close(() => resolve());
          open.closeIdleConnections();
        });
      }
      if (webhooks) {
        await webhooks.fanOut.stop();
        await closeFanOutSource();
        await webhooks.dispatcher.stop();
        webhooks.closeAgent();
      }
      stopFollowing();
      await projections?.stop();
      await stores.webhookSecrets.close();
      await stores.webhookOutbox.close();
      await readModels.close();
      await eventStore.close();
    })());

  return { server, port, stores, projections, webhooks, demo, close };
};
