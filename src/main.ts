import { join } from 'node:path';
import type { Server } from 'node:http';
import type { EventStore } from './application/ports/EventStore.js';
import type { Logger } from './application/ports/Logger.js';
import type { RateLimitCounters } from './application/ports/RateLimitCounters.js';
import { LoopHealth } from './application/LoopHealth.js';
import { READ_MODELS_CHECKPOINT, type ProjectionRunner } from './application/ProjectionRunner.js';
import { ReadModelsAheadOfLogError } from './application/ReadModelsAheadOfLogError.js';
import { bootstrapDemo, type DemoCredentials } from './application/bootstrapDemo.js';
import { MemoryRateLimitCounters } from './adapters/memory/MemoryRateLimitCounters.js';
import { SqliteEventStore } from './adapters/sqlite/SqliteEventStore.js';
import { SqliteIdempotencyStore } from './adapters/sqlite/SqliteIdempotencyStore.js';
import { SqliteRateLimitCounters } from './adapters/sqlite/SqliteRateLimitCounters.js';
import { SqliteReadModelStore } from './adapters/sqlite/SqliteReadModelStore.js';
import { MemoryReadModelStore } from './adapters/memory/MemoryReadModelStore.js';
import { exchangeProgressSignals } from './server/progressSignals.js';
import { SupervisedRateLimitCounters, serveRateLimits } from './adapters/ipc/SupervisedRateLimitCounters.js';
import type { IpcEndpoint } from './shared/IpcEndpoint.js';
import { SqliteWebhookOutbox } from './adapters/sqlite/SqliteWebhookOutbox.js';
import { SqliteWebhookSecretStore } from './adapters/sqlite/SqliteWebhookSecretStore.js';
import { upcastingSource, withUpcasting } from './application/versioning/UpcastingEventStore.js';
import type { Config } from './config.js';
import { supervisedMetrics } from './ops/workerMetrics.js';
import { ChronicleMetrics } from './ops/ChronicleMetrics.js';
import { loadTlsFiles } from './ops/tlsFiles.js';
import { buildApp } from './server/buildApp.js';
import { gracefulClose, type CloseReport } from './server/gracefulClose.js';
import { DEFAULT_SERVER_TIMEOUTS, listen, type ServerTimeouts } from './server/listen.js';
import { Rollback } from './server/Rollback.js';
import { startReadSide } from './server/startReadSide.js';
import { startWebhooks, type ChronicleWebhooks, type WebhookSource } from './server/startWebhooks.js';
import { closeStores, type Stores } from './server/Stores.js';
import { systemClock } from './shared/Clock.js';
import { newId } from './shared/ids.js';
import type { ResolveHost } from './webhooks/targetUrlGuard.js';

/**
 * The composition root: the only file that picks adapters. `startChronicle`
 * reads top to bottom as the steps of a start: stores, write side, read side,
 * webhooks, HTTP; and gives back one `close()` for a graceful stop.
 */

export type { Stores } from './server/Stores.js';
export type { CloseReport } from './server/gracefulClose.js';
export type { ChronicleWebhooks } from './server/startWebhooks.js';
export { DEFAULT_SERVER_TIMEOUTS, type ServerTimeouts } from './server/listen.js';

/** File of the embedded event store inside DATA_DIR. */
export const embeddedDatabaseFile = (dataDir: string): string => join(dataDir, 'chronicle.sqlite');

/** File of the embedded read models inside DATA_DIR (beside the log, never in it: they can always be rebuilt). */
export const embeddedReadModelsFile = (dataDir: string): string => join(dataDir, 'read-models.sqlite');

/**
 * How long the projections' batches may wait for one shared commit of the SQLite read
 * models, in a process that runs the API and the projections (see README, "One
 * process: batches share a commit").
 */
export const SHARED_READ_MODEL_COMMIT_MS = 20;

/** File of the embedded rate-limit counters inside DATA_DIR, shared by every process on it. */
export const embeddedRateLimitsFile = (dataDir: string): string => join(dataDir, 'rate-limits.sqlite');

/**
 * The only place that picks adapters: EventStoreDB when EVENTSTORE_URL is set,
 * else SQLite in DATA_DIR; MongoDB when MONGODB_URL is set, else SQLite read models and rate-limit counters in
 * files of their own in DATA_DIR (every process on one DATA_DIR shares them). The
 * real-server drivers are loaded only when used.
 */
export const openStores = async (config: Config, options: { readonly supervisor?: IpcEndpoint } = {}): Promise<Stores> => {
  const adapter: EventStore = config.eventStoreUrl
    ? (await import('./adapters/eventstoredb/EventStoreDbEventStore.js')).EventStoreDbEventStore.connect(config.eventStoreUrl)
    : SqliteEventStore.open(embeddedDatabaseFile(config.dataDir));
  // Whichever adapter: appends record their schema version, every read path upcasts to current shapes.
  const eventStore = withUpcasting(adapter);
  try {
    if (config.mongoUrl) return { eventStore, ...(await openMongoStores(config.mongoUrl, config)) };
    // config.ts refuses EVENTSTORE_URL without MONGODB_URL: embedded, the secrets, the
    // outbox and the idempotency keys share the event log's SQLite connection.
    if (!(adapter instanceof SqliteEventStore)) throw new Error('EVENTSTORE_URL needs MONGODB_URL');
    const readModels =
      config.readModels === 'memory'
        ? new MemoryReadModelStore()
        : SqliteReadModelStore.open(embeddedReadModelsFile(config.dataDir), {
            // The API and the projections in one process: its reads see each batch at once, so batches
            // share a commit (every 20 ms at most); other processes on DATA_DIR see them then.
            shareCommitMs: config.roles.api && config.roles.projections ? SHARED_READ_MODEL_COMMIT_MS : 0,
          });
    let rateLimits: RateLimitCounters;
    try {
      // One process running the API and the projections (`npm start`) is the only API process on its
      // DATA_DIR: it counts in memory (a count costs 7 µs there, 120 µs in the shared file). API
      // processes beside a separate projector (RUN_PROJECTIONS=false, as API_WORKERS' workers run)
      // may be several: they count together in DATA_DIR/rate-limits.sqlite.
      // An API worker of API_WORKERS asks its supervisor, which counts for all its workers in memory.
      rateLimits = options.supervisor
        ? new SupervisedRateLimitCounters(config.rateLimit, options.supervisor)
        : config.roles.api && !config.roles.projections
          ? SqliteRateLimitCounters.open(embeddedRateLimitsFile(config.dataDir), config.rateLimit)
          : new MemoryRateLimitCounters(config.rateLimit);
    } catch (error) {
      await readModels.close();
      throw error;
    }
    return {
      eventStore,
      readModels,
      rateLimits,
      webhookSecrets: new SqliteWebhookSecretStore(adapter.db),
      webhookOutbox: new SqliteWebhookOutbox(adapter.db),
      idempotency: new SqliteIdempotencyStore(adapter.db),
    };
  } catch (error) {
    await eventStore.close();
    throw error;
  }
};

/** Read models, rate-limit counters, webhook secrets, outbox and idempotency keys in one MongoDB database. */
const openMongoStores = async (url: string, config: Config): Promise<Omit<Stores, 'eventStore'>> => {
  const { MongoReadModelStore } = await import('./adapters/mongodb/MongoReadModelStore.js');
  const { MongoRateLimitCounters } = await import('./adapters/mongodb/MongoRateLimitCounters.js');
  const { MongoWebhookSecretStore } = await import('./adapters/mongodb/MongoWebhookSecretStore.js');
  const { MongoWebhookOutbox } = await import('./adapters/mongodb/MongoWebhookOutbox.js');
  const { MongoIdempotencyStore } = await import('./adapters/mongodb/MongoIdempotencyStore.js');
  const readModels = await MongoReadModelStore.connect(url, config.mongoDb);
  try {
    return {
      readModels,
      rateLimits: await MongoRateLimitCounters.create(readModels.database, config.rateLimit),
      webhookSecrets: new MongoWebhookSecretStore(readModels.database),
      webhookOutbox: await MongoWebhookOutbox.create(readModels.database),
      idempotency: await MongoIdempotencyStore.create(readModels.database),
    };
  } catch (error) {
    await readModels.close();
    throw error;
  }
};

/**
 * Where the webhook fan-out reads the log: on EventStoreDB a persistent
 * subscription group to $all (one active consumer across instances, acked after
 * each outbox write, never nacked); embedded, the event store's checkpointed
 * catch-up subscription (the default).
 */
const openWebhookSource = async (config: Config, eventStore: EventStore, logger: Logger): Promise<WebhookSource> => {
  if (!config.eventStoreUrl) return {};
  const { EsdbPersistentFanOutSource } = await import('./adapters/eventstoredb/EsdbPersistentFanOutSource.js');
  const esdbSource = EsdbPersistentFanOutSource.connect(config.eventStoreUrl, { logger: logger.child({ role: 'webhook-fan-out' }) });
  // Upcast like every other read path, with the (upcasting) event store for the streams' earlier events.
  return { source: upcastingSource(esdbSource, eventStore), closeSource: () => esdbSource.close() };
};

/**
 * Deletes the EventStoreDB persistent subscription group of the webhook fan-out
 * (`chronicle webhooks reset-fan-out`): the next start recreates it at the
 * outbox's position. Answers the group's name and whether it existed.
 */
export const resetWebhookFanOutGroup = async (eventStoreUrl: string): Promise<{ readonly group: string; readonly deleted: boolean }> => {
  const { EsdbPersistentFanOutSource } = await import('./adapters/eventstoredb/EsdbPersistentFanOutSource.js');
  const source = EsdbPersistentFanOutSource.connect(eventStoreUrl);
  try {
    return { group: source.group, deleted: await source.deleteGroup() };
  } finally {
    await source.close();
  }
};

export interface Chronicle {
  /**
   * Resource routes with RUN_API, else only /health, /ready and /metrics; null when the process listens on
   * no port (API_WORKERS' background process without BACKGROUND_PORT: its supervisor hears from it over IPC).
   */
  readonly server: Server | null;
  /** The port actually listened on (PORT=0 picks a free one); null when none. */
  readonly port: number | null;
  readonly stores: Stores;
  readonly projections: ProjectionRunner | null;
  /** The webhook fan-out and dispatcher, when this process runs them (RUN_WEBHOOKS). */
  readonly webhooks: ChronicleWebhooks | null;
  /** The demo company and key created on an empty store (shown once), else null. */
  readonly demo: DemoCredentials | null;
  readonly metrics: ChronicleMetrics;
  /**
   * Resolves (never rejects) with the reason once this process can no longer do
   * its work and must stop: another process took over the read models' lease. The
   * projections have stopped by then; `chronicle serve` stops gracefully and exits 1.
   */
  readonly failed: Promise<Error>;
  /** Graceful stop within `timeoutMs` (default SHUTDOWN_TIMEOUT_MS); see `gracefulClose`. */
  close(options?: { readonly timeoutMs?: number }): Promise<CloseReport>;
}

/** Optional replacements of outside services (tests), and the supervisor of an API worker. */
export interface ChronicleDeps {
  /** Resolves webhook target hosts at subscribe; default: the system resolver (`dns.lookup`, every address). */
  readonly resolveHost?: ResolveHost;
  /** An API worker of API_WORKERS: its IPC channel to the supervisor, which counts the rate limits of every worker and adds up their metrics. */
  readonly supervisor?: IpcEndpoint;
  /**
   * Any process API_WORKERS' supervisor started: the same channel, over which it tells of its appends and
   * applied batches and hears of the others' (`exchangeProgressSignals`).
   */
  readonly progressSignals?: IpcEndpoint;
}

/**
 * The supervisor's rate-limit counters (embedded mode, API_WORKERS above 1): one
 * count in its memory for all the API workers it starts, each served over its IPC
 * channel; the returned function, called when a worker is gone, gives back the
 * concurrency slots it still held. With MONGODB_URL the workers count in MongoDB
 * (null: nothing to serve).
 */
export const supervisorRateLimits = (config: Config): ((worker: IpcEndpoint) => () => Promise<void>) | null => {
  if (config.mongoUrl) return null;
  const counters = new MemoryRateLimitCounters(config.rateLimit);
  return (worker) => serveRateLimits(counters, worker);
};

/** Durable read models with a checkpoint beside an empty log: `ReadModelsAheadOfLogError`. */
const refuseEmptyLogBesideReadModels = async ({ eventStore, readModels }: Stores): Promise<void> => {
  if (!readModels.durable || (await eventStore.headPosition()) !== null) return;
  const checkpoint = await readModels.checkpoints.load(READ_MODELS_CHECKPOINT);
  if (checkpoint !== null) throw new ReadModelsAheadOfLogError(READ_MODELS_CHECKPOINT, checkpoint, null);
};

/**
 * Starts the roles this process runs. A failure at any step (stores, the port,
 * a subscription) stops what the earlier steps started before it is thrown, so a
 * failed start leaves nothing running.
 */
export const startChronicle = async (
  config: Config,
  logger: Logger,
  timeouts: ServerTimeouts = DEFAULT_SERVER_TIMEOUTS,
  deps: ChronicleDeps = {},
): Promise<Chronicle> => {
  // Checked before anything is opened: a bad file is a configuration error (exit 2).
  const tls = config.tls && config.port !== null ? loadTlsFiles(config.tls) : null;
  const rollback = new Rollback(logger);
  try {
    // Stores.
    const stores = rollback.add('stores', await openStores(config, deps.supervisor ? { supervisor: deps.supervisor } : {}), closeStores);
    const { eventStore } = stores;
    // Background loops tell of store errors here (they keep retrying); /ready shows them.
    const health = new LoopHealth();
    const metrics = new ChronicleMetrics({ logger: logger.child({ role: 'metrics' }), headPosition: () => eventStore.headPosition() });

    // Write side: an empty log gets a demo company and key, so a newcomer can call the API at once;
    // but an empty log beside read models that applied events is not theirs (a wrong DATA_DIR or
    // EVENTSTORE_URL, a lost file): refused before anything is written to it. (A projector checks
    // its read models against the log as it starts.)
    if (config.roles.api) await refuseEmptyLogBesideReadModels(stores);
    const demo = config.roles.api ? await bootstrapDemo({ eventStore, newId, clock: systemClock }) : null;

    // Read side: the projections (under the read models' lease), or the projector's checkpoint followed
    // (catching up in the background).
    let fail: (error: Error) => void = () => undefined;
    const failed = new Promise<Error>((resolve) => (fail = resolve));
    const readSide = rollback.add('read side', await startReadSide(config, stores, logger, health, (error) => fail(error)), (side) => side.stop());

    // API_WORKERS: a worker's commits reach the projector, and the projector's batches the workers, at once.
    const stopSignals = deps.progressSignals
      ? rollback.add(
          'progress signals',
          exchangeProgressSignals(deps.progressSignals, {
            ...(config.roles.api && eventStore.onAppended ? { onAppended: (listener) => eventStore.onAppended!(listener) } : {}),
            ...(eventStore.lookNow ? { lookAtLog: () => eventStore.lookNow!() } : {}),
            onApplied: (listener) => readSide.onApplied(listener),
            lookAtCheckpoint: () => readSide.checkpointMoved(),
            count: (signal, direction) => metrics.countSignal(signal, direction),
          }),
          async (stop) => stop(),
        )
      : () => undefined;

    // Webhooks: fan-out into the outbox, and the dispatcher.
    const webhooks = config.roles.webhooks
      ? rollback.add(
          'webhooks',
          await startWebhooks(config, stores, metrics, logger, {
            ...(await openWebhookSource(config, eventStore, logger)),
            health,
            onLeaseLost: (error) => fail(error),
            onFailed: (error) => fail(error),
            ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
          }),
          (started) => started.stop(0),
        )
      : null;

    // HTTP: listening while the read side catches up, so /health and /ready answer (and say what
    // the start waits for); resource routes answer 503 STARTING until it is done. A process told
    // to listen on no port (config.port null) serves nothing.
    let stopping = false;
    let starting = true;
    let server: Server | null = null;
    let port: number | null = null;
    // An API worker of API_WORKERS answers GET /metrics with every worker's figures, added up by its supervisor.
    const workerMetrics = deps.supervisor
      ? rollback.add('worker metrics', supervisedMetrics(() => metrics.snapshot(), deps.supervisor), async (answering) => answering.stop())
      : null;
    if (config.port !== null) {
      const app = buildApp({
        config,
        stores,
        readSide,
        webhooks,
        metrics,
        logger,
        health,
        stopping: () => stopping,
        starting: () => starting,
        ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
        ...(workerMetrics ? { renderMetrics: workerMetrics.render } : {}),
      });
      ({ server, port } = rollback.add('HTTP server', await listen(app, { port: config.port, tls, timeouts }), ({ server: started }) => {
        started.closeAllConnections();
        return new Promise<void>((resolve) => started.close(() => resolve()));
      }));
    }
    await Promise.all([readSide.started, webhooks?.started]);
    starting = false;
    logger.info(
      { port, tls: Boolean(tls), basePath: config.basePath, roles: config.roles },
      port === null ? 'started (listening on no port)' : config.roles.api ? 'API listening' : 'listening (health, readiness and metrics only)',
    );

    // Shutdown.
    const close = gracefulClose({
      server,
      readSide,
      webhooks,
      stores,
      logger,
      beginStopping: () => (stopping = true),
      defaultTimeoutMs: config.shutdownTimeoutMs,
    });
    return {
      server,
      port,
      stores,
      projections: readSide.projections,
      webhooks,
      demo,
      metrics,
      failed,
      close: async (options) => {
        try {
          return await close(options);
        } finally {
          stopSignals();
        }
      },
    };
  } catch (error) {
    logger.error({ err: error }, 'start failed; stopping what was started');
    await rollback.run();
    throw error;
  }
};
