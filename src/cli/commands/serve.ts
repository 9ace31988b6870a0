import { loadConfig } from '../../config.js';
import { createLogger } from '../../logging.js';
import { startChronicle } from '../../main.js';
import type { RegisterCommands } from '../CliContext.js';

const SHUTDOWN_GRACE_MS = 10_000;

export const registerServe: RegisterCommands = (program, context) => {
  program
    .command('serve')
    .description('run the API, the projections and the webhook dispatcher (what `npm start` runs)')
    .action(async () => {
      const config = loadConfig(context.env);
      const logger = createLogger(config.logLevel);
      const chronicle = await startChronicle(config, logger);
      if (chronicle.demo) {
        // Shown once: only the key's hash is stored.
        context.err(
          [
            'Created a demo company and an API key with every permission (shown only this once):',
            `  company ${chronicle.demo.companyName} (${chronicle.demo.companyId})`,
            `  API key ${chronicle.demo.key}`,
            `  try: curl -H "Authorization: Bearer ${chronicle.demo.key}" http://localhost:${chronicle.port ?? config.port}${config.basePath}/test`,
          ].join('\n'),
        );
      }
      if (chronicle.port !== null) {
        const scheme = config.tls ? 'https' : 'http';
        context.err(`Chronicle is listening on ${scheme}://localhost:${chronicle.port}${config.basePath}`);
      }
      const shutdown = (signal: string) => {
        logger.info({ signal }, 'shutting down');
        const force = setTimeout(() => {
          logger.error({ graceMs: SHUTDOWN_GRACE_MS }, 'shutdown took too long; exiting');
          process.exit(1);
        }, SHUTDOWN_GRACE_MS);
        force.unref();
        chronicle.close().then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    });
};
