import { readFileSync } from 'node:fs';
import { startPlan, type StartPlan } from './startPlan.js';
import type { Logger } from '../application/ports/Logger.js';
import { loadConfig, type Config } from '../config.js';
import { createLogger } from '../logging.js';
import type { IpcEndpoint } from '../shared/IpcEndpoint.js';
import { exitOnCrash } from './exitOnCrash.js';
import { reachableAt } from './reachableAt.js';
import { startChronicle, type Chronicle, type ChronicleDeps } from './startChronicle.js';
import { supervisedRole, type ReadyMessage, type SupervisedRole } from './workers/supervisedProcess.js';
import { superviseWorkers } from './workers/superviseWorkers.js';

/** Where `serve` says what operators read (the CLI's stderr). */
export type Say = (line: string) => void;

/** Processes of one supervisor write to one output: each line says which process it came from. */
const processLogger = (config: Config, role: SupervisedRole | null): Logger =>
  role === null
    ? createLogger(config.logLevel, undefined, config.logFormat)
    : createLogger(config.logLevel, undefined, config.logFormat).child({ pid: process.pid, process: role });

/** This process's IPC channel to the supervisor that started it. */
const supervisorChannel = (): IpcEndpoint => ({
  get connected() {
    return process.connected;
  },
  send: (message: unknown) => process.send!(message),
  on: (event: 'message', listener: (message: unknown) => void) => process.on(event, listener),
  off: (event: 'message', listener: (message: unknown) => void) => process.off(event, listener),
});

/**
 * A supervised process's channels: an API worker counts rate limits with its
 * supervisor (for all workers at once); every supervised process tells of its
 * appends and applied batches over it.
 */
const channelsFor = (role: SupervisedRole | null): ChronicleDeps => {
  if (role === null || !process.send) return {};
  const supervisor = supervisorChannel();
  return { ...(role === 'api' ? { supervisor } : {}), progressSignals: supervisor };
};

/** API_WORKERS' background process listens only on BACKGROUND_PORT, and on no port without it. */
const configFor = (config: Config, role: SupervisedRole | null): Config =>
  role === 'background' ? { ...config, port: config.backgroundPort ?? null } : config;

/**
 * One bound on the whole stop (SHUTDOWN_TIMEOUT_MS): exit 0 when everything in
 * flight finished within it, 1 when something had to be cut off, the stop itself
 * overran, or the stop is a failure's. A second signal exits at once.
 */
const stopper = (chronicle: Chronicle, config: Config, logger: Logger) => {
  let signalled = false;
  const stop = (signal: NodeJS.Signals | 'failure'): void => {
    const failure = signal === 'failure';
    if (signalled) {
      if (failure) return;
      logger.warn({ signal }, 'second signal: exiting without finishing the shutdown');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    const force = setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    chronicle.close({ timeoutMs: config.shutdownTimeoutMs }).then(
      (report) => process.exit(report.complete && !failure ? 0 : 1),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  return { stop, get signalled() { return signalled; } };
};

/** How often a process started by `npm start` looks whether npm is still there. */
const PARENT_CHECK_MS = 1000;

/** The parent of process `pid` (Linux: /proc), or null where that cannot be read. */
const parentOf = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "<pid> (<command>) <state> <ppid> …": the command may hold spaces and parentheses.
    return Number(stat.slice(stat.lastIndexOf(')') + 1).trim().split(' ')[1]);
  } catch {
    return null;
  }
};

/**
 * Calls `gone` once npm, which started this process through a shell (`npm start`
 * runs `sh -c 'node bin/chronicle.js serve'`), is no longer there: this process's
 * parent changed, or its parent's (the shell outlives npm). Returns what stops watching.
 */
const whenNpmIsGone = (startedUnder: ProcessParents, gone: () => void): (() => void) => {
  const { parent, grandparent } = startedUnder;
  const watch = setInterval(() => {
    if (process.ppid === parent && (grandparent === null || parentOf(parent) === grandparent)) return;
    clearInterval(watch);
    gone();
  }, PARENT_CHECK_MS);
  watch.unref();
  return () => clearInterval(watch);
};

/** This process's parent and its parent's, as they were when it began to start. */
interface ProcessParents {
  readonly parent: number;
  readonly grandparent: number | null;
}

const parentsNow = (): ProcessParents => ({ parent: process.ppid, grandparent: parentOf(process.ppid) });

/** Whether process `pid` is npm (its command line names it); null where that cannot be read. */
const isNpm = (pid: number | null): boolean | null => {
  if (pid === null) return null;
  try {
    return /(^|[/\s])npm(-cli\.js)?(\s|$)/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
  } catch {
    return null;
  }
};

/**
 * Whether npm, which started this process (`npm start`), was gone before the process
 * could watch it: killed while this process was loading, its shell (or this process)
 * went to init, which is not npm (in a container npm may itself be process 1).
 */
const npmGoneAlready = ({ parent, grandparent }: ProcessParents): boolean => (parent === 1 || grandparent === 1) && isNpm(1) === false;

/**
 * The process stops gracefully on SIGTERM, and on SIGINT unless a supervisor
 * started it (Ctrl-C reaches the whole process group: the supervisor relays it as
 * SIGTERM, in order); a supervised process also stops when its supervisor is gone,
 * and one that `npm start` started stops when npm is gone (npm killed, even with
 * SIGKILL, would otherwise leave it running, orphaned). Another process taking
 * over its lease stops it too (exit 1).
 */
const stopOnSignals = (
  chronicle: Chronicle,
  config: Config,
  logger: Logger,
  role: SupervisedRole | null,
  say: Say,
  env: NodeJS.ProcessEnv,
  startedUnder: ProcessParents,
): void => {
  const stopping = stopper(chronicle, config, logger);
  const { stop } = stopping;
  const terminate = (signal: NodeJS.Signals) => stop(signal);
  process.on('SIGTERM', terminate);
  void chronicle.failed.then((error) => {
    say(`chronicle: ${error.message}`);
    stop('failure');
  });
  if (role === null) process.on('SIGINT', terminate);
  else {
    process.on('SIGINT', () => undefined);
    process.on('disconnect', () => {
      if (!stopping.signalled) terminate('SIGTERM');
    });
  }
  if (role === null && env.npm_lifecycle_event !== undefined) {
    const npmGone = () => {
      logger.warn({ parent: process.ppid }, 'the npm process that started this server is gone; stopping');
      terminate('SIGTERM');
    };
    // Its parents as they were before the start: npm killed while the server was starting is seen too.
    if (npmGoneAlready(startedUnder)) npmGone();
    else whenNpmIsGone(startedUnder, npmGone);
  }
};

/** The rule above and below the demo banner. */
const BANNER_RULE = '='.repeat(78);

/**
 * The demo company and key, said once: framed by blank lines and rules, so that it
 * stands apart from the log lines around it on a terminal (they go to stdout, this to
 * stderr, and a terminal shows both).
 */
export const demoBanner = (demo: { readonly companyName: string; readonly companyId: string; readonly key: string }, at: string): string =>
  [
    '',
    BANNER_RULE,
    'Created a demo company and an API key with every permission but contacts:erase (shown only this once):',
    `  company ${demo.companyName} (${demo.companyId})`,
    `  API key ${demo.key}`,
    `  try: curl -H "Authorization: Bearer ${demo.key}" ${at}/test`,
    BANNER_RULE,
    '',
  ].join('\n');

/**
 * Said once the signals are handled: whoever waits for this line may stop the
 * process at once. The demo key is shown this once (only its hash is stored). A
 * supervised process tells its supervisor instead, which says one line for all.
 */
const announce = (chronicle: Chronicle, config: Config, plan: StartPlan, role: SupervisedRole | null, say: Say): void => {
  const at = reachableAt(config, chronicle.port);
  if (chronicle.demo) say(demoBanner(chronicle.demo, at));
  if (role !== null) {
    const ready: ReadyMessage = { type: 'chronicle:ready', port: chronicle.port };
    process.send?.(ready);
    return;
  }
  const serves = plan.roles.api ? '' : ' (health, readiness and metrics only: RUN_API=false)';
  say(`Chronicle is listening on ${at}${serves}`);
};

/**
 * `chronicle serve` (what `npm start` runs): the roles RUN_* pick, in this
 * process, or with API_WORKERS above 1 a supervisor of several. A failed start has
 * already stopped what it started; its error reaches the CLI (exit 1).
 */
export const serve = async (env: NodeJS.ProcessEnv, say: Say): Promise<void> => {
  const startedUnder = parentsNow();
  const config = loadConfig(env);
  const role = supervisedRole(env);
  const logger = processLogger(config, role);
  exitOnCrash(process, logger, (code) => process.exit(code));
  const plan = startPlan(config, { supervised: role });
  if (plan.supervisor) return superviseWorkers(config, logger, say);
  const chronicle = await startChronicle(configFor(config, role), logger, undefined, channelsFor(role));
  stopOnSignals(chronicle, config, logger, role, say, env, startedUnder);
  announce(chronicle, config, plan, role, say);
};
