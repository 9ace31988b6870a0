import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import type { CliContext, RegisterCommands } from './CliContext.js';
import { registerAdminTokens } from './commands/adminTokens.js';
import { registerAgents } from './commands/agents.js';
import { registerCompanies } from './commands/companies.js';
import { registerConsole } from './commands/console.js';
import { registerErasures } from './commands/erasures.js';
import { registerEvents } from './commands/events.js';
import { registerKeys } from './commands/keys.js';
import { registerReplay } from './commands/replay.js';
import { registerSecrets } from './commands/secrets.js';
import { registerServe } from './commands/serve.js';
import { registerUsers } from './commands/users.js';
import { registerVerify } from './commands/verify.js';
import { registerWebhooks } from './commands/webhooks.js';

const commands: readonly RegisterCommands[] = [
  registerServe,
  registerCompanies,
  registerKeys,
  registerAdminTokens,
  registerUsers,
  registerAgents,
  registerReplay,
  registerVerify,
  registerErasures,
  registerEvents,
  registerWebhooks,
  registerSecrets,
  registerConsole,
];

/** Builds the `chronicle` program; every command module plugs in here. */
export const buildProgram = (context: CliContext): Command => {
  const program = new Command('chronicle')
    .description('Chronicle: event-sourced customer-data API')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => context.out(s.trimEnd()), writeErr: (s) => context.err(s.trimEnd()) })
    .exitOverride();
  commands.forEach((register) => register(program, context));
  return program;
};

/** Runs the CLI; resolves to the exit code. */
export const runCli = async (argv: readonly string[], context: CliContext): Promise<number> => {
  try {
    await buildProgram(context).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ConfigError) {
      context.err(error.message);
      return 2;
    }
    context.err(`chronicle: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
};
