import * as E from 'fp-ts/lib/Either.js';
import { handleCommand } from '../../application/handleCommand.js';
import { Email } from '../../domain/users/Email.js';
import { UserName } from '../../domain/users/UserName.js';
import { describeUserError } from '../../domain/users/userErrors.js';
import { UserEvent, userStream } from '../../domain/users/userEvents.js';
import { userDecider } from '../../domain/users/userDecider.js';
import { newId } from '../../shared/ids.js';
import { systemClock } from '../../shared/Clock.js';
import { print, type RegisterCommands } from '../CliContext.js';
import { withStores } from '../withStores.js';
import { decodeOption, requireCompany } from './companies.js';

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
      const userId = newId();
      const companyId = options.company;
      const outcome = await withStores(context, async ({ eventStore }) => {
        await requireCompany(eventStore, companyId);
        return handleCommand(
          { eventStore, newId: newId },
          {
            decider: userDecider,
            eventCodec: UserEvent,
            stream: userStream(userId),
            command: { type: 'CreateUser', userId, companyId, name, email, at: systemClock.now() },
            metadata: { source: 'cli', correlationId: newId(), companyId },
          },
        );
      });
      if (E.isLeft(outcome)) throw new Error(describeUserError(outcome.left));
      const [created] = outcome.right.events;
      if (!created) throw new Error('CreateUser recorded no event');
      const { data } = created;
      const user = { id: data.userId, companyId: data.companyId, name: data.name, email: data.email, createdAt: data.createdAt };
      print(context, options.json === true, user, `Created user ${user.name} <${user.email}> in company ${user.companyId} with id ${user.id}`);
    });
};
