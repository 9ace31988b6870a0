import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { handleCommand } from '../../application/handleCommand.js';
import type { EventStore } from '../../application/ports/EventStore.js';
import { CompanyName } from '../../domain/companies/CompanyName.js';
import { companyDecider, type CompanyState } from '../../domain/companies/companyDecider.js';
import { describeCompanyError } from '../../domain/companies/companyErrors.js';
import { CompanyEvent, companyStream } from '../../domain/companies/companyEvents.js';
import { newId } from '../../shared/ids.js';
import { systemClock } from '../../shared/Clock.js';
import { formatValidationErrors } from '../../shared/validationReporter.js';
import { print, type RegisterCommands } from '../CliContext.js';
import { withStores } from '../withStores.js';

/** Decodes a CLI value with a codec, or throws a message naming the option (exit 1). */
export const decodeOption = <A>(codec: t.Decoder<unknown, A>, option: string, value: unknown): A => {
  const decoded = codec.decode(value);
  if (E.isRight(decoded)) return decoded.right;
  const message = Object.values(formatValidationErrors(decoded.left))[0] ?? 'is invalid';
  throw new Error(`${option} ${message}`);
};

/** The company as its stream tells it; throws "Company … not found" when there is none. */
export const requireCompany = async (eventStore: EventStore, companyId: string): Promise<Extract<CompanyState, { status: 'created' }>> => {
  let state: CompanyState = companyDecider.initialState;
  for (const recorded of await eventStore.readStream(companyStream(companyId))) {
    const event = CompanyEvent.decode({ type: recorded.type, data: recorded.data });
    if (E.isRight(event)) state = companyDecider.evolve(state, event.right);
  }
  if (state.status !== 'created') throw new Error(`Company ${companyId} not found`);
  return state;
};

export const registerCompanies: RegisterCommands = (program, context) => {
  const companies = program.command('companies').description('manage companies');
  companies
    .command('create')
    .description('create a company')
    .requiredOption('--name <name>', 'display name')
    .option('--json', 'print one JSON document')
    .action(async (options: { name: string; json?: boolean }) => {
      const name = decodeOption(CompanyName, '--name', options.name);
      const companyId = newId();
      const outcome = await withStores(context, ({ eventStore }) =>
        handleCommand(
          { eventStore, newId: newId },
          {
            decider: companyDecider,
            eventCodec: CompanyEvent,
            stream: companyStream(companyId),
            command: { type: 'CreateCompany', companyId, name, at: systemClock.now() },
            metadata: { source: 'cli', correlationId: newId(), companyId },
          },
        ),
      );
      if (E.isLeft(outcome)) throw new Error(describeCompanyError(outcome.left));
      print(context, options.json === true, { id: companyId, name }, `Created company "${name}" with id ${companyId}`);
    });
};
