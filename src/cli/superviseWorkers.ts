import cluster from 'node:cluster';
import { fork, type ChildProcess } from 'node:child_process';
import type { Logger } from '../application/ports/Logger.js';
import type { Config } from '../config.js';
import type { CliContext } from './CliContext.js';
import { supervisorRateLimits } from '../main.js';
import { workerMetricsHub } from '../ops/workerMetrics.js';
import { relayProgressSignal, type RelayTarget } from '../server/progressSignals.js';

/**
 * Set by the supervisor in the environment of the processes it starts: `api` (an
 * API worker) or `background` (the projections and the webhooks). A supervised
 * process reports over IPC that it has started instead of printing it, leaves SIGINT to
 * the supervisor, and stops when the supervisor goes away.
 */
export const SUPERVISED_ENV = 'CHRONICLE_SUPERVISED';

export type SupervisedRole = 'api' | 'background';

/**
 * What a supervised process sends once its start completed (its read side caught up, listening if it
 * listens at all): the port, or null for a background process that listens on none.
 */
export interface ReadyMessage {
  readonly type: 'chronicle:ready';
  readonly port: number | null;
}

export const isReadyMessage = (message: unknown): message is ReadyMessage =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'chronicle:ready';

/** The role of this process when a supervisor started it, else null. */
export const supervisedRole = (env: NodeJS.ProcessEnv): SupervisedRole | null => {
  const role = env[SUPERVISED_ENV];
  return role === 'api' || role === 'background' ? role : null;
};

/** A restarted process waits this long, doubled after each crash in a row up to the maximum. */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A process that ran this long before it died is restarted after the first delay again. */
const STABLE_AFTER_MS = 60_000;
/** After the shutdown bound, what is still running is killed (SIGKILL) after this much more. */
const KILL_GRACE_MS = 2_000;

interface Child {
  readonly role: SupervisedRole;
  readonly name: string;
  readonly process: ChildProcess;
  readonly startedAt: number;
  /** Resolves with the port (null: none) once the process has started; rejects when it exits first. */
  readonly ready: Promise<number | null>;
  /** Resolves with the exit code (null: killed by a signal). */
  readonly exited: Promise<number | null>;
}

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
export const superviseWorkers = async (config: Config, logger: Logger, context: CliContext): Promise<void> => {
  const children = new Set<Child>();
  let stopping = false;
  /** Until every process has started once, a process that exits fails the start instead of being restarted. */
  let running = false;
  const restartDelays = new Map<string, number>();
  // The API workers' rate limits: counted here, in memory, for all of them (embedded mode).
  const rateLimits = supervisorRateLimits(config);
  // GET /metrics reaches one API worker (they share PORT): it asks here for every worker's figures.
  const metricsHub = workerMetricsHub();

  function* relayTargets(): Generator<RelayTarget> {
    for (const child of children) yield { role: child.role, endpoint: child.process };
  }

  const start = (role: SupervisedRole, name: string): Child => {
    const roles =
      role === 'api'
        ? { RUN_API: 'true', RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' }
        : { RUN_API: 'false', RUN_PROJECTIONS: String(config.roles.projections), RUN_WEBHOOKS: String(config.roles.webhooks) };
    const env = { ...process.env, ...roles, API_WORKERS: '1', [SUPERVISED_ENV]: role };
    // API workers are cluster workers (the supervisor holds PORT and hands them the connections);
    // the background process is a plain child: it listens on BACKGROUND_PORT when set, else on no
    // port, and tells the supervisor over the IPC channel once it has started.
    const proc: ChildProcess =
      role === 'api' ? cluster.fork(env).process : fork(process.argv[1]!, process.argv.slice(2), { env, stdio: 'inherit' });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    if (role === 'api' && rateLimits) {
      const forget = rateLimits(proc);
      // A worker that is gone gives back the concurrency slots it held.
      void exited.then(forget);
    }
    if (role === 'api') void exited.then(metricsHub.serve(proc));
    const ready = new Promise<number | null>((resolve, reject) => {
      const onMessage = (message: unknown) => {
        if (!isReadyMessage(message)) return;
        proc.off('message', onMessage);
        resolve(message.port);
      };
      proc.on('message', onMessage);
      void exited.then((code) => reject(new Error(`${name} exited with code ${code} before its start completed`)));
    });
    ready.catch(() => undefined);
    const child: Child = { role, name, process: proc, startedAt: Date.now(), ready, exited };
    children.add(child);
    // A worker's commit reaches the projector, the projector's batch the workers, at once (progressSignals).
    proc.on('message', (message: unknown) => relayProgressSignal(message, role, relayTargets()));
    void exited.then((code) => {
      children.delete(child);
      if (running && !stopping) restart(child, code);
    });
    return child;
  };

  const restart = (child: Child, code: number | null): void => {
    const ranMs = Date.now() - child.startedAt;
    const delay = ranMs >= STABLE_AFTER_MS ? RESTART_DELAY_MS : Math.min(MAX_RESTART_DELAY_MS, restartDelays.get(child.name) ?? RESTART_DELAY_MS);
    restartDelays.set(child.name, Math.min(MAX_RESTART_DELAY_MS, delay * 2));
    logger.warn({ process: child.name, pid: child.process.pid, code, restartInMs: delay }, 'a process exited; starting it again');
    setTimeout(() => {
      if (stopping) return;
      const again = start(child.role, child.name);
      again.ready.then(
        (port) => logger.info({ process: again.name, pid: again.process.pid, ...(port === null ? {} : { port }) }, 'process started again'),
        () => undefined,
      );
    }, delay).unref();
  };

  /** SIGTERM to every process of `role`, then waits for them; true when every one exited 0. */
  const stopRole = async (role: SupervisedRole): Promise<boolean> => {
    const stopped = [...children].filter((child) => child.role === role);
    for (const child of stopped) child.process.kill('SIGTERM');
    const codes = await Promise.all(stopped.map((child) => child.exited));
    return codes.every((code) => code === 0);
  };

  const stopAll = async (): Promise<boolean> => {
    stopping = true;
    let killer: NodeJS.Timeout | undefined;
    const bound = new Promise<false>((resolve) => {
      killer = setTimeout(() => {
        logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'processes still running after the shutdown bound; killing them');
        for (const child of children) child.process.kill('SIGKILL');
        resolve(false);
      }, config.shutdownTimeoutMs + KILL_GRACE_MS);
    });
    // The API workers first: while they stop, their last writes still reach the projector.
    const clean = Promise.all([stopRole('api')]).then(async ([api]) => (await stopRole('background')) && api);
    const result = await Promise.race([clean, bound]);
    clearTimeout(killer);
    await Promise.all([...children].map((child) => child.exited));
    return result;
  };

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: killing the processes without finishing the shutdown');
      for (const child of children) child.process.kill('SIGKILL');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs, processes: children.size }, 'shutting down');
    void stopAll().then((clean) => process.exit(clean ? 0 : 1));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  try {
    const background = config.roles.projections || config.roles.webhooks ? start('background', 'background') : null;
    const backgroundPort = background ? await background.ready : null;
    // One API worker alone first: on an empty log it creates the demo company and key, once.
    const first = start('api', 'api-1');
    const port = await first.ready;
    const others = Array.from({ length: config.apiWorkers - 1 }, (_, i) => start('api', `api-${i + 2}`));
    await Promise.all(others.map((child) => child.ready));
    if (signalled) return;
    running = true;
    const scheme = config.tls ? 'https' : 'http';
    const where = backgroundPort === null ? 'listening on no port (BACKGROUND_PORT unset)' : `its probes and metrics on port ${backgroundPort}`;
    const rest = background ? `; projections and webhooks in process ${background.process.pid}, ${where}` : '';
    context.err(`Chronicle is listening on ${scheme}://localhost:${port}${config.basePath} (${config.apiWorkers} API workers${rest})`);
  } catch (error) {
    if (!signalled) {
      logger.error({ err: error }, 'start failed; stopping the processes that were started');
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      await stopAll();
    }
    throw error;
  }
};
