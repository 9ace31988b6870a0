import * as E from 'fp-ts/lib/Either.js';
import { consoleLinkUrl } from '../../application/console/consoleLinkUrl.js';
import { issueConsoleLink } from '../../application/console/issueConsoleLink.js';
import { describeCompanyError } from '../../domain/companies/companyErrors.js';
import { describeConsoleLinkError } from '../../domain/consoleLinks/consoleLinkErrors.js';
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
          throw new Error(error.kind === 'CompanyNotFound' ? describeCompanyError(error) : describeConsoleLinkError(error));
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
};
