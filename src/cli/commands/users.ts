import * as E from 'fp-ts/lib/Either.js';
import { createUser, Email, UserName, describeUserError } from '../../features/users/index.js';
import { describeCompanyError } from '../../features/companies/index.js';
import { print, type RegisterCommands } from '../CliContext.js';
import { cliCommandDeps, cliMetadata } from '../cliWrites.js';
import { withStores } from '../withStores.js';
import { decodeOption } from './companies.js';

export const registerUsers: RegisterCommands = (program, context) => {
  const users = program.command('users').description('manage users');
  users
    .command('create')
    .description('create a user in a company')
    .requiredOption('--company <id>', 'id of an existing company')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--email <email>', 'email address')
    .option('--json', 'print one JSON document')
    .action(async (options: { company: string; name: string; email: string; json?: boolean }) => {
      const name = decodeOption(UserName, '--name', options.name);
      const email = decodeOption(Email, '--email', options.email);
      const outcome = await withStores(context, ({ eventStore }) =>
        createUser(cliCommandDeps(eventStore), { companyId: options.company, name, email, metadata: cliMetadata() }),
      );
      if (E.isLeft(outcome)) throw new Error(outcome.left.kind === 'CompanyNotFound' ? describeCompanyError(outcome.left) : describeUserError(outcome.left));
      const { position: _, ...user } = outcome.right;
      print(context, options.json === true, user, `Created user ${user.name} <${user.email}> in company ${user.companyId} with id ${user.id}`);
    });
};
