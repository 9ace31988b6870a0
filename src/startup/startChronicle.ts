import { CachedDocumentViews } from '../application/queries/CachedDocumentViews.js';
import type { Server } from 'node:http';
import type { Logger } from '../application/ports/Logger.js';
import type { DemoCredentials } from './bootstrapDemo.js';
import { LoopHealth } from '../application/subscriptions/LoopHealth.js';
import { UsageRecorder } from '../application/usage/UsageRecorder.js';
import type { ProjectionRunner } from '../application/subscriptions/ProjectionRunner.js';
import { systemClock, type Clock } from '../shared/Clock.js';
import type { Config } from '../config.js';
import { ChronicleMetrics } from '../ops/ChronicleMetrics.js';
import { loadTlsFiles } from '../ops/tlsFiles.js';
import type { IpcEndpoint } from '../shared/IpcEndpoint.js';
import type { ResolveHost } from '../webhooks/targetUrlGuard.js';
import { openStores, openWebhookSource, tightenDataDir } from './adapters.js';
import { secureSecretsAtStart } from './secretsAtRest.js';
import { gracefulClose, type CloseReport } from './gracefulClose.js';
import { startHttp } from './http.js';
import { DEFAULT_SERVER_TIMEOUTS, type ServerTimeouts } from './listen.js';
import { startProgressSignals } from './progressSignals.js';
import { startReadSide } from './readSide.js';
import { contactRetention } from './contactRetention.js';
import { companyDeletion } from './companyErasure.js';
import { companyExportSweep, companyExportsOf } from './companyExports.js';
import { startPlan, type ProcessPart } from './startPlan.js';
import { StartSteps } from './StartSteps.js';
import { closeStores, type Stores } from './Stores.js';
import { startWebhooks, type ChronicleWebhooks } from './webhooks.js';
import { startWriteSide } from './writeSide.js';
import { reapplyErasureJournal } from './erasures.js';

export type { Stores } from './Stores.js';
export type { CloseReport } from './gracefulClose.js';
export type { ChronicleWebhooks } from './webhooks.js';
export { DEFAULT_SERVER_TIMEOUTS, type ServerTimeouts } from './listen.js';

/** A started process: what it runs, and one `close()` for a graceful stop. */
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
  /** Requests and delivery attempts counted per company and hour (written every few seconds; `flush()` writes now). */
  readonly usage: UsageRecorder;
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
  /**
   * The time of the HTTP side (requests, credentials, console sessions, the commands it
   * runs) and of the end of deleted contacts' restore periods; default the system's.
   * Tests give one that moves when they say so.
   */
  readonly clock?: Clock;
}

/** The part a supervisor gave this process, as its channels tell: an API worker has its supervisor, the background process only the signals. */
const partOf = (deps: ChronicleDeps): ProcessPart => ({ supervised: deps.supervisor ? 'api' : deps.progressSignals ? 'background' : null });

/** A promise resolved, once, with the first failure that must stop the process. */
const failureSignal = (): { readonly failed: Promise<Error>; readonly fail: (error: Error) => void } => {
  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<Error>((resolve) => (fail = resolve));
  return { failed, fail: (error) => fail(error) };
};

/**
 * Starts the roles this process runs, step by step: the stores, the write side,
 * the read side, the progress signals (API_WORKERS), the webhooks, HTTP; then
 * waits for the read side and the webhooks to have caught up, and hands back one
 * graceful `close()`. A failure at any step stops what the steps before it
 * started before it is thrown, so a failed start leaves nothing running.
 */
export const startChronicle = async (
  config: Config,
  logger: Logger,
  timeouts: ServerTimeouts = DEFAULT_SERVER_TIMEOUTS,
  deps: ChronicleDeps = {},
): Promise<Chronicle> => {
  // Checked before anything is opened: a bad file is a configuration error (exit 2).
  const tls = config.tls && config.port !== null ? loadTlsFiles(config.tls) : null;
  const plan = startPlan(config, partOf(deps));
  const steps = new StartSteps(logger);
  try {
    // DATA_DIR private to this user first (0700, its files 0600), however it was left.
    await steps.run('private DATA_DIR', () => tightenDataDir(config.dataDir, logger));
    const stores = await steps.run('stores', () => openStores(config, { plan, logger, ...(deps.supervisor ? { supervisor: deps.supervisor } : {}) }), closeStores);
    const { eventStore } = stores;
    // Secrets in the clear or under an earlier key encrypted under SECRETS_KEY (one no key opens stops the start);
    // API_WORKERS' API workers leave it to the background process, started before them.
    if (!deps.supervisor) await steps.run('secrets at rest', () => secureSecretsAtStart(stores, config, logger));
    // Background loops tell of store errors here (they keep retrying); /ready shows them.
    const health = new LoopHealth();
    const metrics = new ChronicleMetrics({ logger: logger.child({ role: 'metrics' }), headPosition: () => eventStore.headPosition() });
    if (stores.readModels instanceof CachedDocumentViews) metrics.countReadViews(stores.readModels.counts);
    const { failed, fail } = failureSignal();

    const { demo } = await steps.run('write side', () => startWriteSide(plan, stores));

    // Erasures made since a restored backup was taken, made again before any request is answered (ERASURE_JOURNAL);
    // API_WORKERS' API workers leave it to the background process, started before them.
    const reapplied = deps.supervisor ? null : await steps.run('erasure journal', () => reapplyErasureJournal(stores, logger));

    // Requests and delivery attempts per company and hour, for the console: counted in memory, written every few seconds.
    const usage = await steps.run(
      'usage counters',
      () => {
        const recorder = new UsageRecorder({ counters: stores.usage, clock: systemClock, logger: logger.child({ role: 'usage' }) });
        recorder.start();
        return recorder;
      },
      (recorder) => recorder.stop(),
    );

    const readSide = await steps.run(
      'read side',
      () =>
        startReadSide(plan, stores, logger, health, fail, [
          contactRetention(config, stores, logger, health, deps.clock),
          companyDeletion(config, stores, logger, health, deps.clock),
          companyExportSweep(stores, logger, health, deps.clock),
        ]),
      (side) => side.stop(),
    );

    const stopSignals = deps.progressSignals
      ? await steps.run(
          'progress signals',
          () => startProgressSignals(deps.progressSignals!, { api: plan.roles.api, eventStore, readSide, metrics }),
          (stop) => stop(),
        )
      : () => undefined;

    const webhooks = plan.roles.webhooks
      ? await steps.run(
          'webhooks',
          async () =>
            startWebhooks(config, stores, metrics, logger, {
              ...(await openWebhookSource(config, eventStore, logger)),
              health,
              usage,
              onLeaseLost: fail,
              onFailed: fail,
              ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
            }),
          (started) => started.stop(0),
        )
      : null;

    // Stopped after HTTP (steps stop in reverse): the exports being written are marked failed before the stores close.
    const exports = await steps.run(
      'company exports',
      async () => companyExportsOf(stores, logger, deps.clock),
      (running) => running.stop(),
    );

    const http = await steps.run(
      'HTTP',
      () =>
        startHttp(
          config,
          {
            config,
            plan,
            stores,
            readSide,
            webhooks,
            metrics,
            logger,
            health,
            usage,
            exports,
            ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
            ...(deps.clock ? { clock: deps.clock } : {}),
          },
          { tls, timeouts, ...(deps.supervisor ? { supervisor: deps.supervisor } : {}) },
        ),
      (side) => side.close(),
    );

    await Promise.all([readSide.started, webhooks?.started]);
    if (reapplied) {
      const { position } = reapplied.outcome;
      if (position !== null) await readSide.progress?.waitFor(position, config.readYourWritesTimeoutMs);
      await reapplied.compact();
    }
    http.started();
    const { server, port } = http;
    logger.info(
      { host: config.host, port, tls: Boolean(tls), basePath: config.basePath, roles: plan.roles },
      port === null ? 'started (listening on no port)' : plan.roles.api ? 'API listening' : 'listening (health, readiness and metrics only)',
    );

    const close = gracefulClose({
      server,
      readSide,
      webhooks,
      stores,
      usage,
      logger,
      beginStopping: () => http.beginStopping(),
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
      usage,
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
    await steps.rollback();
    throw error;
  }
};
