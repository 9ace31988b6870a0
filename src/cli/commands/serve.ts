import { loadConfig } from '../../config.js';
import { createLogger } from '../../logging.js';
import { startChronicle } from '../../main.js';
import type { RegisterCommands } from '../CliContext.js';
import { exitOnCrash } from '../exitOnCrash.js';
import type { IpcEndpoint } from '../../shared/IpcEndpoint.js';
import { superviseWorkers, supervisedRole, type ReadyMessage } from '../superviseWorkers.js';

export const registerServe: RegisterCommands = (program, context) => {
  program
    .command('serve')
    .description(
      'run the API, the projections and the webhook dispatcher (what `npm start` runs; RUN_* pick the roles, API_WORKERS the API processes)',
    )
    .action(async () => {
      const config = loadConfig(context.env);
      const supervised = supervisedRole(context.env);
      // Processes of one supervisor write to one output: each line says which process it came from.
      const logger = supervised === null ? createLogger(config.logLevel) : createLogger(config.logLevel).child({ pid: process.pid, process: supervised });
      exitOnCrash(process, logger, (code) => process.exit(code));
      // API_WORKERS above 1: this process only starts, watches and stops the others.
      if (config.apiWorkers > 1 && supervised === null) return superviseWorkers(config, logger, context);
      // A failed start has already stopped what it started; the error reaches the CLI (exit 1).
      // API_WORKERS' background process listens only on BACKGROUND_PORT, and on no port without it.
      // A supervised process's IPC channel to its supervisor: an API worker counts rate limits there, for all
      // workers at once; every supervised process tells of its appends and applied batches over it.
      const supervisor: IpcEndpoint | undefined =
        supervised !== null && process.send
          ? {
              get connected() {
                return process.connected;
              },
              send: (message: unknown) => process.send!(message),
              on: (event: 'message', listener: (message: unknown) => void) => process.on(event, listener),
              off: (event: 'message', listener: (message: unknown) => void) => process.off(event, listener),
            }
          : undefined;
      const chronicle = await startChronicle(
        supervised === 'background' ? { ...config, port: config.backgroundPort ?? null } : config,
        logger,
        undefined,
        supervisor ? { ...(supervised === 'api' ? { supervisor } : {}), progressSignals: supervisor } : {},
      );
      const scheme = config.tls ? 'https' : 'http';
      // One bound on the whole stop (SHUTDOWN_TIMEOUT_MS): exit 0 when everything in
      // flight finished within it, 1 when something had to be cut off or the stop
      // itself overran. A second signal exits at once.
      let signalled = false;
      /** Stops gracefully; exits 0 when everything finished, 1 when something was cut off or the stop is a failure's. */
      const stop = (signal: NodeJS.Signals | 'failure') => {
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
      const shutdown = (signal: NodeJS.Signals) => stop(signal);
      process.on('SIGTERM', shutdown);
      // Another process took over the read models' lease: the projections have stopped; so does this process (exit 1).
      void chronicle.failed.then((error) => {
        context.err(`chronicle: ${error.message}`);
        stop('failure');
      });
      if (supervised === null) process.on('SIGINT', shutdown);
      else {
        // Ctrl-C reaches the whole process group: the supervisor relays it as SIGTERM, in order.
        process.on('SIGINT', () => undefined);
        // The supervisor is gone (killed): stop rather than run on unwatched.
        process.on('disconnect', () => {
          if (!signalled) shutdown('SIGTERM');
        });
      }

      // Announced once the signals are handled: whoever waits for this line may stop the process at once.
      if (chronicle.demo) {
        // Shown once: only the key's hash is stored.
        context.err(
          [
            'Created a demo company and an API key with every permission (shown only this once):',
            `  company ${chronicle.demo.companyName} (${chronicle.demo.companyId})`,
            `  API key ${chronicle.demo.key}`,
            `  try: curl -H "Authorization: Bearer ${chronicle.demo.key}" ${scheme}://localhost:${chronicle.port}${config.basePath}/test`,
          ].join('\n'),
        );
      }
      if (supervised !== null) {
        // The supervisor prints one line once every process has started.
        const ready: ReadyMessage = { type: 'chronicle:ready', port: chronicle.port };
        process.send?.(ready);
      } else {
        const serves = config.roles.api ? '' : ' (health, readiness and metrics only: RUN_API=false)';
        context.err(`Chronicle is listening on ${scheme}://localhost:${chronicle.port}${config.basePath}${serves}`);
      }
    });
};
