import cluster from 'node:cluster';
import { fork, type ChildProcess } from 'node:child_process';
import type { Logger } from '../../application/ports/Logger.js';
import type { Config } from '../../config.js';
import { workerMetricsHub } from '../../ops/workerMetrics.js';
import { supervisorRateLimits } from '../adapters.js';
import { relayProgressSignal, type RelayTarget } from '../progressSignals.js';
import { isReadyMessage, SUPERVISED_ENV, type SupervisedRole } from './supervisedProcess.js';

/** A restarted process waits this long, doubled after each crash in a row up to the maximum. */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A process that ran this long before it died is restarted after the first delay again. */
const STABLE_AFTER_MS = 60_000;
/** After the shutdown bound, what is still running is killed (SIGKILL) after this much more. */
const KILL_GRACE_MS = 2_000;

export interface Child {
  readonly role: SupervisedRole;
  readonly name: string;
  readonly process: ChildProcess;
  readonly startedAt: number;
  /** Resolves with the port (null: none) once the process has started; rejects when it exits first. */
  readonly ready: Promise<number | null>;
  /** Resolves with the exit code (null: killed by a signal). */
  readonly exited: Promise<number | null>;
}

/** The environment of a supervised process: its role's RUN_* and no workers of its own. */
const envFor = (config: Config, role: SupervisedRole): NodeJS.ProcessEnv => {
  const roles =
    role === 'api'
      ? { RUN_API: 'true', RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' }
      : { RUN_API: 'false', RUN_PROJECTIONS: String(config.roles.projections), RUN_WEBHOOKS: String(config.roles.webhooks) };
  return { ...process.env, ...roles, API_WORKERS: '1', [SUPERVISED_ENV]: role };
};

/**
 * API workers are cluster workers (the supervisor holds PORT and hands them the connections);
 * the background process is a plain child: it listens on BACKGROUND_PORT when set, else on no
 * port, and tells the supervisor over the IPC channel once it has started.
 */
const forkProcess = (config: Config, role: SupervisedRole): ChildProcess =>
  role === 'api'
    ? cluster.fork(envFor(config, role)).process
    : fork(process.argv[1]!, process.argv.slice(2), { env: envFor(config, role), stdio: 'inherit' });

/** Resolves with the port a child reports once started; rejects when it exits first. */
const readyOf = (name: string, proc: ChildProcess, exited: Promise<number | null>): Promise<number | null> => {
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
  return ready;
};

/**
 * The processes API_WORKERS' supervisor runs: it starts them, serves what they
 * share (the API workers' rate limits, counted here in memory in embedded mode;
 * every worker's metrics, added up here; the progress signals relayed between
 * them), starts again one that dies once all have started (with a growing delay
 * while it keeps dying), and stops them.
 */
export class WorkerPool {
  private readonly children = new Set<Child>();
  private readonly restartDelays = new Map<string, number>();
  private readonly rateLimits: ReturnType<typeof supervisorRateLimits>;
  private readonly metricsHub = workerMetricsHub();
  /** Until every process has started once, a process that exits fails the start instead of being restarted. */
  private running = false;
  private stopping = false;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
  ) {
    this.rateLimits = supervisorRateLimits(config);
  }

  get size(): number {
    return this.children.size;
  }

  /** Every process started once: from now on, one that dies is started again. */
  markRunning(): void {
    this.running = true;
  }

  start(role: SupervisedRole, name: string): Child {
    const proc = forkProcess(this.config, role);
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    if (role === 'api') this.serveWorker(proc, exited);
    const child: Child = { role, name, process: proc, startedAt: Date.now(), ready: readyOf(name, proc, exited), exited };
    this.children.add(child);
    // A worker's commit reaches the projector, the projector's batch the workers, at once (progressSignals).
    proc.on('message', (message: unknown) => relayProgressSignal(message, role, this.relayTargets()));
    void exited.then((code) => {
      this.children.delete(child);
      if (this.running && !this.stopping) this.restart(child, code);
    });
    return child;
  }

  /** Stops the API workers, then the background process, each gracefully; true when every one exited 0 in time. */
  async stopAll(): Promise<boolean> {
    this.stopping = true;
    let killer: NodeJS.Timeout | undefined;
    const bound = new Promise<false>((resolve) => {
      killer = setTimeout(() => {
        this.logger.error({ timeoutMs: this.config.shutdownTimeoutMs }, 'processes still running after the shutdown bound; killing them');
        this.killAll();
        resolve(false);
      }, this.config.shutdownTimeoutMs + KILL_GRACE_MS);
    });
    // The API workers first: while they stop, their last writes still reach the projector.
    const clean = this.stopRole('api').then(async (api) => (await this.stopRole('background')) && api);
    const result = await Promise.race([clean, bound]);
    clearTimeout(killer);
    await Promise.all([...this.children].map((child) => child.exited));
    return result;
  }

  killAll(): void {
    for (const child of this.children) child.process.kill('SIGKILL');
  }

  /** An API worker's rate limits and metrics are served here; a worker that is gone gives back its concurrency slots. */
  private serveWorker(proc: ChildProcess, exited: Promise<number | null>): void {
    if (this.rateLimits) void exited.then(this.rateLimits(proc));
    void exited.then(this.metricsHub.serve(proc));
  }

  private *relayTargets(): Generator<RelayTarget> {
    for (const child of this.children) yield { role: child.role, endpoint: child.process };
  }

  private restart(child: Child, code: number | null): void {
    const ranMs = Date.now() - child.startedAt;
    const delay =
      ranMs >= STABLE_AFTER_MS ? RESTART_DELAY_MS : Math.min(MAX_RESTART_DELAY_MS, this.restartDelays.get(child.name) ?? RESTART_DELAY_MS);
    this.restartDelays.set(child.name, Math.min(MAX_RESTART_DELAY_MS, delay * 2));
    this.logger.warn({ process: child.name, pid: child.process.pid, code, restartInMs: delay }, 'a process exited; starting it again');
    setTimeout(() => {
      if (this.stopping) return;
      const again = this.start(child.role, child.name);
      again.ready.then(
        (port) => this.logger.info({ process: again.name, pid: again.process.pid, ...(port === null ? {} : { port }) }, 'process started again'),
        () => undefined,
      );
    }, delay).unref();
  }

  /** SIGTERM to every process of `role`, then waits for them; true when every one exited 0. */
  private async stopRole(role: SupervisedRole): Promise<boolean> {
    const stopped = [...this.children].filter((child) => child.role === role);
    for (const child of stopped) child.process.kill('SIGTERM');
    const codes = await Promise.all(stopped.map((child) => child.exited));
    return codes.every((code) => code === 0);
  }
}
