import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { createCompany, loadCompany, CompanyName, describeCompanyError, companiesProjection, companyOf, PLATFORM_SCOPE } from '../../features/companies/index.js';
import type { EventStore } from '../../application/ports/EventStore.js';
import { formatValidationErrors } from '../../shared/validationReporter.js';
import { print, type RegisterCommands } from '../CliContext.js';
import { cliCommandDeps, cliMetadata } from '../cliWrites.js';
import { withStores } from '../withStores.js';
import { listCompanyDocuments } from '../listCompanyDocuments.js';
import { importCompany, ImportRefusedError } from '../../application/companyExport/importCompany.js';
import { endImportedWebhooks, isWebhookStream } from '../../features/webhooks/index.js';
import { systemClock } from '../../shared/Clock.js';
import { newId } from '../../shared/ids.js';
import { erasedPeopleOf } from '../erasedPeople.js';

/** Decodes a CLI value with a codec, or throws a message naming the option (exit 1). */
export const decodeOption = <A>(codec: t.Decoder<unknown, A>, option: string, value: unknown): A => {
  const decoded = codec.decode(value);
  if (E.isRight(decoded)) return decoded.right;
  const message = Object.values(formatValidationErrors(decoded.left))[0] ?? 'is invalid';
  throw new Error(`${option} ${message}`);
};

/** Throws "Company … not found" (exit 1) when the company does not exist. */
export const requireCompany = async (eventStore: EventStore, companyId: string): Promise<void> => {
  if ((await loadCompany(eventStore, companyId)) === null) throw new Error(describeCompanyError({ kind: 'CompanyNotFound', companyId }));
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
      const outcome = await withStores(context, ({ eventStore }) => createCompany(cliCommandDeps(eventStore), { name, metadata: cliMetadata() }));
      if (E.isLeft(outcome)) throw new Error(describeCompanyError(outcome.left));
      const { id } = outcome.right;
      print(context, options.json === true, { id, name }, `Created company "${name}" with id ${id}`);
    });
  companies
    .command('list')
    .description('list every company, oldest first (ids and names: where a lost demo key is found again)')
    .option('--json', 'print one JSON document')
    .action(async (options: { json?: boolean }) => {
      const listed = await withStores(context, (stores, config) => listCompanyDocuments(context, stores, config, companiesProjection, PLATFORM_SCOPE));
      const list = listed.map(companyOf);
      if (options.json === true) context.out(JSON.stringify(list));
      else if (list.length === 0) context.out('No companies yet');
      else for (const company of list) context.out(`${company.id}  ${company.name}  (created ${company.createdAt})`);
    });
  companies
    .command('import')
    .description("import a company's export (POST /admin/companies/:id/exports) into a store that does not have the company")
    .argument('<file>', 'the downloaded archive (a tar)')
    .option('--json', 'print one JSON document')
    .action(async (file: string, options: { json?: boolean }) => {
      const outcome = await withStores(context, (stores) =>
        importCompany(file, {
          eventStore: stores.eventStore,
          companyExists: async (companyId) => (await loadCompany(stores.eventStore, companyId)) !== null,
          importedLast: isWebhookStream,
          endLast: (streams, companyId, at) => endImportedWebhooks(cliCommandDeps(stores.eventStore), streams, companyId, at, newId()).then(() => undefined),
          erasedPeople: erasedPeopleOf,
          ...(stores.sealingKeys ? { keys: stores.sealingKeys } : {}),
          clock: systemClock,
        }).catch((error: unknown) => {
          // A refusal is the archive's or the store's: said as it is (exit 1), nothing imported.
          if (error instanceof ImportRefusedError) throw new Error(`import refused: ${error.message}`);
          throw error;
        }),
      );
      print(
        context,
        options.json === true,
        outcome,
        `Imported company ${outcome.companyId}: ${outcome.events} events; ${outcome.streamsEnded} webhook subscriptions ended (they have no secret here); ` +
          `${outcome.erasedSubjects} erased people erased again`,
      );
    });
};
