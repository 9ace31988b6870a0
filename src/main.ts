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
import { newId } from './shared/ids.js';
import { apiKeyDirectoryProjection } from '../projections/apiKeys/apiKeyDirectoryProjection.js';
import { contactsProjection } from '../projections/contacts/contactsProjection.js';
import { ProjectionRunner } from './application/ProjectionRunner.js';
import { SqliteEventStore } from './adapters/sqlite/SqliteEventStore.js';
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
    return { eventStore, readModels, rateLimits: await MongoRateLimitCounters.create(readModels.database, config.rateLimit) };
  }
  return { eventStore, readModels: new MemoryReadModelStore(), rateLimits: new MemoryRateLimitCounters(config.rateLimit) };
};

export interface Chronicle {
  readonly server: Server | null;
  /** The port actually listened on (PORT=0 picks a free one). */
  readonly port: number | null;
  readonly stores: Stores;
  readonly projections: ProjectionRunner | null;
  /** The demo company and key created on an empty store (shown once), else null. */
  readonly demo: DemoCredentials | null;
  /** Stops accepting, lets in-flight requests finish, stops the runner, closes the stores. */
  close(): Promise<void>;
}

export const startChronicle = async (config: Config, logger: Logger): Promise<Chronicle> => {
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

  let server: Server | null = null;
  let port: number | null = null;
  if (config.roles.api) {
    const runner = projections;
    if (!runner) throw new Error('an API process without projections needs a shared progress source (not built yet)');
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
        projectionLag: () => runner.lag(),
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
        ],
      },
    });
    const handler = app.callback();
    server = config.tls
      ? createHttpsServer({ cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) }, handler)
      : createHttpServer(handler);
    // Slow clients are cut off: headers within 10 s, a whole request within 30 s.
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    server.keepAliveTimeout = 5_000;
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
      await projections?.stop();
      await readModels.close();
      await eventStore.close();
    })());

  return { server, port, stores, projections, demo, close };
};
