import { join } from 'node:path';
import { startPlan, type StartPlan } from './startPlan.js';
import type { EventStore } from '../application/ports/EventStore.js';
import type { Logger } from '../application/ports/Logger.js';
import type { RateLimitCounters } from '../application/ports/RateLimitCounters.js';
import { MemoryRateLimitCounters } from '../adapters/memory/MemoryRateLimitCounters.js';
import { DEFAULT_LEASE_SECONDS } from '../adapters/rateLimiterFlexible/FlexibleRateLimitCounters.js';
import { BatchedRateLimitCounters } from '../application/rateLimits/BatchedRateLimitCounters.js';
import { CachedDocumentViews } from '../application/queries/CachedDocumentViews.js';
import { ReplicaReadModels, ReplicaReads } from '../application/queries/ReplicaReadModels.js';
import { CheckpointProgress } from '../application/subscriptions/ReadModelProgress.js';
import { READ_MODELS_CHECKPOINT } from '../application/subscriptions/ProjectionRunner.js';
import type { ReadModelStore } from '../application/ports/ReadModelStore.js';
import type { ReadReplica } from '../application/ports/ReadReplica.js';
import { contactsProjection } from '../features/contacts/index.js';
import { dealsProjection } from '../features/deals/index.js';
import { SqliteConsoleSessionStore } from '../adapters/sqlite/SqliteConsoleSessionStore.js';
import { SqliteCompanyExportStore } from '../adapters/sqlite/SqliteCompanyExportStore.js';
import { SqliteEventStore } from '../adapters/sqlite/SqliteEventStore.js';
import { SqliteIdempotencyStore } from '../adapters/sqlite/SqliteIdempotencyStore.js';
import { SqliteRateLimitCounters } from '../adapters/sqlite/SqliteRateLimitCounters.js';
import { SqliteReadModelStore } from '../adapters/sqlite/SqliteReadModelStore.js';
import { ThreadedReadModelStore } from '../adapters/sqlite/ThreadedReadModelStore.js';
import { SqliteErasureCompaction } from '../adapters/sqlite/SqliteErasureCompaction.js';
import { SqliteUsageCounters } from '../adapters/sqlite/SqliteUsageCounters.js';
import { MemoryReadModelStore } from '../adapters/memory/MemoryReadModelStore.js';
import { SupervisedRateLimitCounters, serveRateLimits } from '../adapters/ipc/SupervisedRateLimitCounters.js';
import type { IpcEndpoint } from '../shared/IpcEndpoint.js';
import { SqliteWebhookOutbox } from '../adapters/sqlite/SqliteWebhookOutbox.js';
import { SqliteWebhookSecretStore } from '../adapters/sqlite/SqliteWebhookSecretStore.js';
import { SqliteSubjectKeyStore } from '../adapters/sqlite/SqliteSubjectKeyStore.js';
import { FileErasureJournal } from '../adapters/files/FileErasureJournal.js';
import { UpcastingEventStore, upcastingSource, withUpcasting } from '../application/versioning/UpcastingEventStore.js';
import type { Config } from '../config.js';
import { PERSONAL_EVENT_FIELDS, PERSONAL_STREAM_PREFIXES, RETIRED_EVENT_FIELDS, STORED_EVENT_TYPES } from '../features/index.js';
import type { WebhookSource } from './webhooks.js';
import { closeStores, type Stores } from './Stores.js';
import { secretsKeyring, withEncryptedSecrets } from './secretsAtRest.js';
import { PersonalDataEventStore } from '../application/personalData/PersonalDataEventStore.js';
import { SubjectKeys } from '../application/personalData/SubjectKeys.js';
import { PersonalStreamNames, STREAM_NAMES_KEY_SUBJECT } from '../application/personalData/PersonalStreamNames.js';
import { sealStoredEvents } from '../application/personalData/sealStoredEvents.js';

/** DATA_DIR and every file in it private to this user (0700, 0600), however it was left: what every engine keeps there. */
export { tightenDataDir } from '../adapters/sqlite/privateFiles.js';

/**
 * The only file that picks adapters: which store each port gets, from the
 * environment. Every other part of the start-up (startChronicle.ts) works on the
 * ports. The real-server drivers are loaded only when used.
 */

/** File of the embedded event store inside DATA_DIR. */
export const embeddedDatabaseFile = (dataDir: string): string => join(dataDir, 'chronicle.sqlite');

/** File of the embedded read models inside DATA_DIR (beside the log, never in it: they can always be rebuilt). */
export const embeddedReadModelsFile = (dataDir: string): string => join(dataDir, 'read-models.sqlite');

/**
 * How long the projections' batches may wait for one shared commit of the SQLite read
 * models, in a process that runs the API and the projections (see
 * docs/contributors/sqlite-read-models.md, "One process: batches share a commit").
 */
export const SHARED_READ_MODEL_COMMIT_MS = 20;

/** File of the console's sessions and usage counters inside DATA_DIR, shared by every process on it. */
export const embeddedConsoleFile = (dataDir: string): string => join(dataDir, 'console.sqlite');

/** File of the companies' exports inside DATA_DIR (their archives hold people's values: `secure_delete` on), shared by every process on it. */
export const embeddedExportsFile = (dataDir: string): string => join(dataDir, 'exports.sqlite');

/** File of the embedded rate-limit counters inside DATA_DIR, shared by every process on it. */
export const embeddedRateLimitsFile = (dataDir: string): string => join(dataDir, 'rate-limits.sqlite');

/** An API worker's channel to its supervisor (which counts its rate limits), and the start's plan (default: `startPlan` of `config`). */
export interface OpenStoresOptions {
  readonly supervisor?: IpcEndpoint;
  readonly plan?: StartPlan;
  /** Told of what the stores get over by themselves (a read replica's idle connection lost). */
  readonly logger?: Logger;
}

/**
 * The only place that picks adapters: every store in PostgreSQL when POSTGRES_URL is set; EventStoreDB when EVENTSTORE_URL is set,
 * else SQLite in DATA_DIR; MongoDB when MONGODB_URL is set, else SQLite read models and rate-limit counters in
 * files of their own in DATA_DIR (every process on one DATA_DIR shares them). The
 * real-server drivers are loaded only when used.
 */
export const openStores = async (config: Config, options: OpenStoresOptions = {}): Promise<Stores> =>
  // Webhook secrets encrypted at rest (SECRETS_KEY) whichever engine keeps them; personal fields sealed in the log;
  // the erasure journal's file made (ERASURE_JOURNAL), so that a start that could not write it fails.
  await closedOnFailure(withEncryptedSecrets(await openEngineStores(config, options), config), async (stores) => ({
    ...(await withSealedPersonalData(stores, config)),
    ...(config.erasureJournal === undefined ? {} : { erasureJournal: await openErasureJournal(config.erasureJournal) }),
  }));

/** The erasure journal's file, made when missing: a start that cannot write it fails, saying which setting and why. */
const openErasureJournal = async (path: string): Promise<FileErasureJournal> => {
  try {
    return await FileErasureJournal.open(path);
  } catch (error) {
    throw new Error(`ERASURE_JOURNAL cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): give a file in a folder that exists, outside DATA_DIR`, {
      cause: error,
    });
  }
};

/** `use(stores)`, or every store closed when it fails (a start that cannot go on leaves nothing open). */
const closedOnFailure = async (stores: Stores, use: (stores: Stores) => Promise<Stores>): Promise<Stores> => {
  try {
    return await use(stores);
  } catch (error) {
    await closeStores(stores).catch(() => undefined);
    throw error;
  }
};

/**
 * The log with every event's personal fields sealed under its subjects' keys
 * (`PersonalDataEventStore`), below the versioning decorator: whichever engine,
 * the adapter only ever sees sealed values, and everything above the event store
 * opened ones. Where the log's streams can be renamed (SQLite, PostgreSQL), the
 * streams named after a person's value are stored with it hashed, and those an
 * earlier release stored under the value itself are renamed first, once
 * (`PersonalStreamNames`), and the events an earlier release stored with personal
 * values in the clear are sealed in place, once (`sealStoredEvents`); on
 * EventStoreDB both stay as they were written.
 */
const withSealedPersonalData = async (stores: Stores, config: Config): Promise<Stores> => {
  const upcasting = stores.eventStore;
  if (!(upcasting instanceof UpcastingEventStore)) throw new Error('the event store must be wrapped in the versioning decorator');
  const keys = new SubjectKeys(stores.subjectKeys, secretsKeyring(config));
  const adapter = upcasting.inner;
  let names: PersonalStreamNames | undefined;
  if (adapter.renameStreams && PERSONAL_STREAM_PREFIXES.length > 0) {
    const key = (await keys.keysFor([STREAM_NAMES_KEY_SUBJECT])).get(STREAM_NAMES_KEY_SUBJECT);
    if (!key) throw new Error('the key of stream names was erased: stream names can no longer be found');
    const hashed = new PersonalStreamNames(PERSONAL_STREAM_PREFIXES, key);
    for (const prefix of PERSONAL_STREAM_PREFIXES) await adapter.renameStreams(prefix, (stream) => hashed.stored(stream));
    names = hashed;
  }
  // Events stored before personal fields were sealed: sealed in place, once (resumed where a start left it).
  if (adapter.rewriteEventData) await sealStoredEvents({ rewriteEventData: adapter.rewriteEventData.bind(adapter) }, keys, PERSONAL_EVENT_FIELDS, RETIRED_EVENT_FIELDS);
  const sealed = new PersonalDataEventStore(adapter, keys, PERSONAL_EVENT_FIELDS, names);
  return { ...stores, eventStore: new UpcastingEventStore(sealed, { types: STORED_EVENT_TYPES }), sealingKeys: keys };
};

/**
 * The embedded read models. The API and the projections in one process: the batches on a
 * thread of their own (READ_MODEL_THREAD, decision 87), each committed before the API's
 * reads are told; without the thread, batches share a commit (every 20 ms at most), which
 * its reads see at once, and other processes on DATA_DIR at the commit.
 */
const openEmbeddedReadModels = (config: Config, plan: StartPlan): SqliteReadModelStore | ThreadedReadModelStore => {
  const file = embeddedReadModelsFile(config.dataDir);
  if (plan.stores.readModels === 'sqlite-thread') {
    return new ThreadedReadModelStore(SqliteReadModelStore.open(file), { file, entry: new URL('./readModelThreadMain.js', import.meta.url) });
  }
  return SqliteReadModelStore.open(file, { shareCommitMs: plan.stores.readModels === 'sqlite-shared-commit' ? SHARED_READ_MODEL_COMMIT_MS : 0 });
};

/**
 * An API process's read models with a replica: requests read from it once it shows what
 * they wait for (its replicated checkpoint, read every 20 ms while someone waits), else
 * from the primary after POSTGRES_READ_FALLBACK_MS (see `ReplicaReads`).
 */
const replicaReadModels = (config: Config, primary: ReadModelStore, replica: ReadReplica): ReplicaReadModels => {
  const follow = (store: ReadModelStore) => new CheckpointProgress(() => store.checkpoints.load(READ_MODELS_CHECKPOINT), 20);
  return new ReplicaReadModels(primary, replica.readModels, new ReplicaReads(follow(replica.readModels), follow(primary), config.postgresReadFallbackMs));
};

const openEngineStores = async (config: Config, options: OpenStoresOptions): Promise<Stores> => {
  const plan = options.plan ?? startPlan(config, { supervised: options.supervisor ? 'api' : null });
  if (config.postgresUrl) {
    // Every store in one PostgreSQL database (config.ts refuses EVENTSTORE_URL or MONGODB_URL beside it).
    const stores = await (await import('../adapters/postgres/openPostgresStores.js')).openPostgresStores(config.postgresUrl, {
      poolSize: config.postgresPoolSize,
      rateLimits: config.rateLimit,
    });
    // Every request counts: in batches in this process's memory, added to the shared table now and then.
    const rateLimits = new BatchedRateLimitCounters(stores.rateLimits, { batch: config.rateLimitCountBatch, leaseSeconds: DEFAULT_LEASE_SECONDS });
    // A process that serves the API and writes the read models answers warm GETs by id from memory (once it holds their lease).
    const readModels =
      plan.roles.api && plan.roles.projections ? new CachedDocumentViews(stores.readModels, new Set([contactsProjection.name, dealsProjection.name])) : stores.readModels;
    const eventStore = withUpcasting(stores.eventStore, STORED_EVENT_TYPES);
    // An API process beside the projector reads its read models from a replica (POSTGRES_READ_URL); the projector writes them on the primary.
    if (config.postgresReadUrl && plan.roles.api && !plan.roles.projections) {
      try {
        const replica = await (await import('../adapters/postgres/PostgresReadReplica.js')).PostgresReadReplica.open(config.postgresReadUrl, {
          poolSize: config.postgresPoolSize,
          ...(options.logger ? { logger: options.logger } : {}),
        });
        return { ...stores, rateLimits, eventStore, readModels: replicaReadModels(config, readModels, replica), readReplica: replica };
      } catch (error) {
        await closeStores({ ...stores, rateLimits, readModels, eventStore }).catch(() => undefined);
        throw error;
      }
    }
    return { ...stores, rateLimits, readModels, eventStore };
  }
  const adapter: EventStore = config.eventStoreUrl
    ? (await import('../adapters/eventstoredb/EventStoreDbEventStore.js')).EventStoreDbEventStore.connect(config.eventStoreUrl)
    : SqliteEventStore.open(embeddedDatabaseFile(config.dataDir));
  // Whichever adapter: appends record their schema version, every read path upcasts to current shapes.
  const eventStore = withUpcasting(adapter, STORED_EVENT_TYPES);
  try {
    if (config.mongoUrl) return { eventStore, ...(await openMongoStores(config.mongoUrl, config)) };
    // config.ts refuses EVENTSTORE_URL without MONGODB_URL: embedded, the secrets, the
    // outbox, the idempotency keys and the subject keys share the event log's SQLite connection.
    if (!(adapter instanceof SqliteEventStore)) throw new Error('EVENTSTORE_URL needs MONGODB_URL');
    const readModels = plan.stores.readModels === 'memory' ? new MemoryReadModelStore() : openEmbeddedReadModels(config, plan);
    let rateLimits: RateLimitCounters | undefined;
    let consoleSessions: SqliteConsoleSessionStore | undefined;
    let usage: SqliteUsageCounters;
    let companyExports: SqliteCompanyExportStore | undefined;
    try {
      // One process running the API and the projections (`npm start`) is the only API process on its
      // DATA_DIR: it counts in memory, far cheaper than in the shared file
      // (docs/benchmarks/design-measurements.md, "Rate-limit counters"). API
      // processes beside a separate projector (RUN_PROJECTIONS=false, as API_WORKERS' workers run)
      // may be several: they count together in DATA_DIR/rate-limits.sqlite.
      // An API worker of API_WORKERS asks its supervisor, which counts for all its workers in memory.
      rateLimits =
        plan.stores.rateLimits === 'supervisor' && options.supervisor
          ? new SupervisedRateLimitCounters(config.rateLimit, options.supervisor)
          : plan.stores.rateLimits === 'sqlite-file'
            ? SqliteRateLimitCounters.open(embeddedRateLimitsFile(config.dataDir), config.rateLimit)
            : new MemoryRateLimitCounters(config.rateLimit);
      consoleSessions = SqliteConsoleSessionStore.open(embeddedConsoleFile(config.dataDir));
      usage = SqliteUsageCounters.open(embeddedConsoleFile(config.dataDir));
      companyExports = SqliteCompanyExportStore.open(embeddedExportsFile(config.dataDir));
    } catch (error) {
      await Promise.allSettled([readModels.close(), rateLimits?.close?.(), consoleSessions?.close(), companyExports?.close()]);
      throw error;
    }
    return {
      eventStore,
      readModels,
      rateLimits,
      webhookSecrets: new SqliteWebhookSecretStore(adapter.db),
      webhookOutbox: new SqliteWebhookOutbox(adapter.db),
      idempotency: new SqliteIdempotencyStore(adapter.db),
      consoleSessions,
      usage,
      companyExports,
      subjectKeys: new SqliteSubjectKeyStore(adapter.db),
      // A memory read model keeps nothing on disk: only the log's file to compact then.
      compaction: new SqliteErasureCompaction(
        adapter.db,
        readModels instanceof MemoryReadModelStore
          ? { file: 'read models (in memory)', vacuum: async () => ({ walTruncated: true }) }
          : { file: 'read-models.sqlite', vacuum: () => readModels.vacuum() },
      ),
    };
  } catch (error) {
    await eventStore.close();
    throw error;
  }
};

/** Read models, rate-limit counters, webhook secrets, outbox, idempotency keys, console sessions, usage and subject keys in one MongoDB database. */
const openMongoStores = async (url: string, config: Config): Promise<Omit<Stores, 'eventStore'>> => {
  const { MongoReadModelStore } = await import('../adapters/mongodb/MongoReadModelStore.js');
  const { MongoRateLimitCounters } = await import('../adapters/mongodb/MongoRateLimitCounters.js');
  const { MongoWebhookSecretStore } = await import('../adapters/mongodb/MongoWebhookSecretStore.js');
  const { MongoWebhookOutbox } = await import('../adapters/mongodb/MongoWebhookOutbox.js');
  const { MongoIdempotencyStore } = await import('../adapters/mongodb/MongoIdempotencyStore.js');
  const { MongoConsoleSessionStore } = await import('../adapters/mongodb/MongoConsoleSessionStore.js');
  const { MongoUsageCounters } = await import('../adapters/mongodb/MongoUsageCounters.js');
  const { MongoSubjectKeyStore } = await import('../adapters/mongodb/MongoSubjectKeyStore.js');
  const { MongoCompanyExportStore } = await import('../adapters/mongodb/MongoCompanyExportStore.js');
  const readModels = await MongoReadModelStore.connect(url, config.mongoDb);
  try {
    return {
      readModels,
      rateLimits: await MongoRateLimitCounters.create(readModels.database, config.rateLimit),
      webhookSecrets: new MongoWebhookSecretStore(readModels.database),
      webhookOutbox: await MongoWebhookOutbox.create(readModels.database),
      idempotency: await MongoIdempotencyStore.create(readModels.database),
      consoleSessions: await MongoConsoleSessionStore.create(readModels.database),
      usage: await MongoUsageCounters.create(readModels.database),
      companyExports: await MongoCompanyExportStore.create(readModels.database),
      subjectKeys: new MongoSubjectKeyStore(readModels.database),
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
export const openWebhookSource = async (config: Config, eventStore: EventStore, logger: Logger): Promise<WebhookSource> => {
  if (!config.eventStoreUrl) return {};
  const { EsdbPersistentFanOutSource } = await import('../adapters/eventstoredb/EsdbPersistentFanOutSource.js');
  const esdbSource = EsdbPersistentFanOutSource.connect(config.eventStoreUrl, { logger: logger.child({ role: 'webhook-fan-out' }) });
  // Opened and upcast like every other read path, with the (upcasting) event store for the streams' earlier events.
  const personal = eventStore instanceof UpcastingEventStore ? eventStore.inner : null;
  if (!(personal instanceof PersonalDataEventStore)) throw new Error('the event store must seal personal data below the versioning decorator');
  return { source: upcastingSource(personal.openedSource(esdbSource), eventStore), closeSource: () => esdbSource.close() };
};

/**
 * Deletes the EventStoreDB persistent subscription group of the webhook fan-out
 * (`chronicle webhooks reset-fan-out`): the next start recreates it at the
 * outbox's position. Answers the group's name and whether it existed.
 */
export const resetWebhookFanOutGroup = async (eventStoreUrl: string): Promise<{ readonly group: string; readonly deleted: boolean }> => {
  const { EsdbPersistentFanOutSource } = await import('../adapters/eventstoredb/EsdbPersistentFanOutSource.js');
  const source = EsdbPersistentFanOutSource.connect(eventStoreUrl);
  try {
    return { group: source.group, deleted: await source.deleteGroup() };
  } finally {
    await source.close();
  }
};

/**
 * The supervisor's rate-limit counters (embedded mode, API_WORKERS above 1): one
 * count in its memory for all the API workers it starts, each served over its IPC
 * channel; the returned function, called when a worker is gone, gives back the
 * concurrency slots it still held. With MONGODB_URL or POSTGRES_URL the workers
 * count in that database (null: nothing to serve).
 */
export const supervisorRateLimits = (config: Config): ((worker: IpcEndpoint) => () => Promise<void>) | null => {
  if (startPlan(config).supervisor?.rateLimits !== 'memory') return null;
  const counters = new MemoryRateLimitCounters(config.rateLimit);
  return (worker) => serveRateLimits(counters, worker);
};
