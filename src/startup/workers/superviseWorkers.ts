import type { Logger } from '../../application/ports/Logger.js';
import type { Config } from '../../config.js';
import { reachableAt } from '../reachableAt.js';
import { WorkerPool } from './WorkerPool.js';

/** Where the supervisor says what operators read (the CLI's stderr). */
type Say = (line: string) => void;

/**
 * `chronicle serve` with API_WORKERS above 1: one supervisor process that runs no
 * role itself and starts, on this machine,
 *
 * - one **background** process with the projections and the webhooks (whichever of
 *   RUN_PROJECTIONS, RUN_WEBHOOKS are on; none when both are off), so there is
 *   exactly one projector and one dispatcher on the DATA_DIR. It listens on no port
 *   unless BACKGROUND_PORT is set (then its /health, /ready and /metrics are there):
 *   it tells the supervisor over the IPC channel that it has started (its read models
 *   caught up), and the supervisor restarts it when it exits. The API workers' /ready
 *   already fails when the projector falls behind;
 * - **API_WORKERS API workers** (node:cluster, sharing PORT; RUN_PROJECTIONS=false),
 *   which follow the projector's checkpoint and count rate limits together, here:
 *   this process keeps the counts in its memory and answers each worker's
 *   questions over its IPC channel (MongoDB mode: the workers count in MongoDB).
 *   A scrape of GET /metrics reaching one of them is answered with every worker's
 *   figures, added up here (`workerMetricsHub`). A worker's appends and the
 *   projector's applied batches are relayed between them (`relayProgressSignal`),
 *   so a write waits for the projector without waiting for polls.
 *
 * The background process starts first, then one API worker (which creates the demo
 * on an empty log), then the others. A start that fails stops what was started and
 * throws (exit 1). A process that dies afterwards is started again (with a growing
 * delay while it keeps dying). SIGTERM or SIGINT stops the API workers first, then
 * the background process, each gracefully, within SHUTDOWN_TIMEOUT_MS; the
 * supervisor exits 0 when every process did.
 */
export const superviseWorkers = async (config: Config, logger: Logger, say: Say): Promise<void> => {
  const pool = new WorkerPool(config, logger);

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: killing the processes without finishing the shutdown');
      pool.killAll();
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs, processes: pool.size }, 'shutting down');
    void pool.stopAll().then((clean) => process.exit(clean ? 0 : 1));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    const background = config.roles.projections || config.roles.webhooks ? pool.start('background', 'background') : null;
    const backgroundPort = background ? await background.ready : null;
    // One API worker alone first: on an empty log it creates the demo company and key, once.
    const port = await pool.start('api', 'api-1').ready;
    await Promise.all(Array.from({ length: config.apiWorkers - 1 }, (_, i) => pool.start('api', `api-${i + 2}`).ready));
    if (signalled) return;
    pool.markRunning();
    const where = backgroundPort === null ? 'listening on no port (BACKGROUND_PORT unset)' : `its probes and metrics on port ${backgroundPort}`;
    const rest = background ? `; projections and webhooks in process ${background.process.pid}, ${where}` : '';
    say(`Chronicle is listening on ${reachableAt(config, port)} (${config.apiWorkers} API workers${rest})`);
  } catch (error) {
    if (!signalled) {
      logger.error({ err: error }, 'start failed; stopping the processes that were started');
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      await pool.stopAll();
    }
    throw error;
  }
};
