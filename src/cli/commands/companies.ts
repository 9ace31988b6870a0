import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import {
  createCompany,
  eraseCompany,
  loadCompany,
  requestCompanyDeletion,
  resumeCompany,
  suspendCompany,
  CompanyName,
  SuspensionReason,
  describeCompanyError,
  companiesProjection,
  companyOf,
  PLATFORM_SCOPE,
  type Company,
} from '../../features/companies/index.js';
import { importedPhoneReservations } from '../../features/contacts/index.js';
import { endCompanyConsoleSessions } from '../../application/consoleSessions/consoleSession.js';
import { silentLogger } from '../../application/ports/Logger.js';
import { companyDataEraserOf } from '../../startup/companyErasure.js';
import { personErasureOf } from '../../startup/erasures.js';
import { readModelsAt } from './erasures.js';
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
    .command('delete')
    .description('delete a company: suspended at once, erased after DELETED_COMPANIES_RETENTION_DAYS (a resume meanwhile cancels it), or at once with --now (see docs/platform/deleting-a-company.md)')
    .argument('<id>', 'the company\'s id')
    .option('--now', 'erase it now instead of after the waiting period')
    .option('--json', 'print one JSON document')
    .action(async (companyId: string, options: { now?: boolean; json?: boolean }) => {
      const answer = await withStores(context, async (stores, config) => {
        const commands = cliCommandDeps(stores.eventStore);
        if (options.now === true && !stores.readModels.durable) {
          throw new Error('--now needs read models this process can read (SQLite, PostgreSQL, MongoDB); ask the server instead: DELETE /admin/companies/:id?now=true');
        }
        const requested = await requestCompanyDeletion(commands, {
          companyId,
          retentionMs: config.deletedCompaniesRetentionDays * 86_400_000,
          metadata: cliMetadata(),
        });
        if (E.isLeft(requested)) throw new Error(describeCompanyError(requested.left));
        // A deletion suspends the company: its console sessions end now, as a suspension's do.
        await endCompanyConsoleSessions(stores.consoleSessions, companyId);
        const { id, deletionRequestedAt, eraseAfter } = requested.right;
        if (options.now !== true) return { id, deletionRequestedAt, eraseAfter };
        const erasure = personErasureOf(stores, silentLogger);
        const erased = await eraseCompany(
          {
            commands,
            data: companyDataEraserOf(stores, erasure, commands),
            waitForReadModels: (position) => readModelsAt(context, stores, config, position),
            compact: () => erasure.compactNow(),
          },
          { companyId, metadata: cliMetadata() },
        );
        if (E.isLeft(erased)) {
          if (erased.left.kind === 'ReadModelsBehind') {
            throw new Error('the read models are behind the log (is a server with RUN_PROJECTIONS running?): the deletion is recorded; run this again to erase now');
          }
          throw new Error(describeCompanyError(erased.left));
        }
        return { id, deletionRequestedAt, eraseAfter, erasedAt: erased.right.erasedAt };
      });
      const readable =
        'erasedAt' in answer
          ? `Erased company ${answer.id} at ${answer.erasedAt}`
          : `Deletion of company ${answer.id} asked for at ${answer.deletionRequestedAt}: it is erased after ${answer.eraseAfter}`;
      print(context, options.json === true, answer, readable);
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
      else for (const company of list) context.out(`${company.id}  ${company.name}  (created ${company.createdAt}${suspendedNote(company)})`);
    });
  companies
    .command('suspend')
    .description("suspend a company: its API keys are refused, its console sessions end, its webhook deliveries are held")
    .argument('<id>', 'id of an existing company')
    .requiredOption('--reason <text>', 'why (1 to 500 characters; kept as the company\'s personal data)')
    .option('--json', 'print one JSON document')
    .action(async (companyId: string, options: { reason: string; json?: boolean }) => {
      const reason = decodeOption(SuspensionReason, '--reason', options.reason);
      const outcome = await withStores(context, async ({ eventStore, consoleSessions }) => {
        const suspended = await suspendCompany(cliCommandDeps(eventStore), { companyId, reason, metadata: cliMetadata() });
        if (E.isRight(suspended)) await endCompanyConsoleSessions(consoleSessions, companyId);
        return suspended;
      });
      if (E.isLeft(outcome)) throw new Error(describeCompanyError(outcome.left));
      const { company, changed } = outcome.right;
      print(
        context,
        options.json === true,
        company,
        changed ? `Suspended company ${companyId}` : `Company ${companyId} was already suspended, since ${company.suspendedAt ?? ''}; nothing changed`,
      );
    });
  companies
    .command('resume')
    .description('resume a suspended company: its keys, console and webhook deliveries work again (held deliveries go out in order); a deletion waiting is cancelled')
    .argument('<id>', 'id of an existing company')
    .option('--json', 'print one JSON document')
    .action(async (companyId: string, options: { json?: boolean }) => {
      const outcome = await withStores(context, ({ eventStore }) => resumeCompany(cliCommandDeps(eventStore), { companyId, metadata: cliMetadata() }));
      if (E.isLeft(outcome)) throw new Error(describeCompanyError(outcome.left));
      const { company, changed } = outcome.right;
      print(context, options.json === true, company, changed ? `Resumed company ${companyId}` : `Company ${companyId} is not suspended; nothing changed`);
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
          keyedStreams: importedPhoneReservations(cliCommandDeps(stores.eventStore), cliMetadata),
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

const suspendedNote = (company: Company): string => (company.status === 'suspended' ? `; suspended since ${company.suspendedAt ?? '?'}` : '');
