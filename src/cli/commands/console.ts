import * as E from 'fp-ts/lib/Either.js';
import { consoleLinkUrl, issueConsoleLink, describeConsoleLinkError } from '../../features/console/index.js';
import { loadCompany, describeCompanyError } from '../../features/companies/index.js';
import { endCompanyConsoleSessions } from '../../application/consoleSessions/consoleSession.js';
import type { Config } from '../../config.js';
import { print, type RegisterCommands } from '../CliContext.js';
import { cliCommandDeps, cliMetadata } from '../cliWrites.js';
import { withStores } from '../withStores.js';

/** Where customers reach this server: CONSOLE_PUBLIC_URL, else this machine's own address and PORT. */
const publicOrigin = (config: Config): string => config.console.publicUrl ?? `${config.tls ? 'https' : 'http'}://localhost:${config.port ?? 3000}`;

export const registerConsole: RegisterCommands = (program, context) => {
  const customerConsole = program.command('console').description('the customer console');

  customerConsole
    .command('link')
    .description("issue a single-use link into a company's console, valid for 15 minutes (printed once)")
    .requiredOption('--company <id>', 'id of an existing company')
    .option('--json', 'print one JSON document')
    .action(async (options: { company: string; json?: boolean }) => {
      const { issued, url } = await withStores(context, async ({ eventStore }, config) => {
        const outcome = await issueConsoleLink(cliCommandDeps(eventStore), { companyId: options.company, metadata: cliMetadata() });
        if (E.isLeft(outcome)) {
          const error = outcome.left;
          throw new Error(error.kind === 'CompanyNotFound' || error.kind === 'CompanyIsSuspended' ? describeCompanyError(error) : describeConsoleLinkError(error));
        }
        return { issued: outcome.right, url: consoleLinkUrl(publicOrigin(config), config.basePath, outcome.right.token) };
      });
      print(
        context,
        options.json === true,
        { url, expiresAt: issued.expiresAt },
        `Console link for company ${issued.companyId}, valid once until ${issued.expiresAt}: ${url}`,
      );
    });

  customerConsole
    .command('sessions')
    .description('console sessions')
    .command('end')
    .description("end every console session of a company at once, on every process (each browser is signed out at its next request)")
    .requiredOption('--company <id>', 'id of an existing company')
    .option('--json', 'print one JSON document')
    .action(async (options: { company: string; json?: boolean }) => {
      const ended = await withStores(context, async ({ eventStore, consoleSessions }) => {
        if ((await loadCompany(eventStore, options.company)) === null) {
          throw new Error(describeCompanyError({ kind: 'CompanyNotFound', companyId: options.company }));
        }
        return endCompanyConsoleSessions(consoleSessions, options.company);
      });
      print(
        context,
        options.json === true,
        { companyId: options.company, ended },
        `Ended ${ended} console session${ended === 1 ? '' : 's'} of company ${options.company}`,
      );
    });
};
