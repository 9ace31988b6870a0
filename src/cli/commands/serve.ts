import { serve } from '../../startup/serve.js';
import type { RegisterCommands } from '../CliContext.js';

export const registerServe: RegisterCommands = (program, context) => {
  program
    .command('serve')
    .description(
      'run the API, the projections and the webhook dispatcher (what `npm start` runs; RUN_* pick the roles, API_WORKERS the API processes)',
    )
    .action(() => serve(context.env, context.err));
};
