import { listCompanyDocuments } from '../listCompanyDocuments.js';
import * as E from 'fp-ts/lib/Either.js';
import { issueApiKey, revokeApiKey, describeApiKeyError, ApiKeyName, apiKeyNameOf, apiKeysProjection } from '../../features/apiKeys/index.js';
import { describeCompanyError } from '../../features/companies/index.js';
import { EVERY_PERMISSION, ApiKeyType, Permission, SPECIFICATION_PERMISSIONS } from '../../shared/permissions.js';
import { print, type RegisterCommands } from '../CliContext.js';
import { cliCommandDeps, cliMetadata } from '../cliWrites.js';
import { withStores } from '../withStores.js';
import { decodeOption, requireCompany } from './companies.js';

const PERMISSIONS_HELP = `"all" (every permission but contacts:erase) or a comma-separated list of ${EVERY_PERMISSION.join(', ')}`;

/**
 * `all` (the seven permissions of the specification: not `contacts:erase`, which
 * a key holds only when it is named), or a comma-separated list of any permissions.
 */
export const parsePermissions = (list: string): Permission[] => {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 1 && names[0]!.toLowerCase() === 'all') return [...SPECIFICATION_PERMISSIONS];
  const unknown = names.filter((name) => !Permission.is(name));
  if (names.length === 0 || unknown.length > 0) {
    const what = names.length === 0 ? 'is empty' : `has unknown permission${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}`;
    throw new Error(`--permissions ${what}; give ${PERMISSIONS_HELP}`);
  }
  return names.filter((name): name is Permission => Permission.is(name));
};

export const parseKeyType = (value: string): ApiKeyType => {
  if (ApiKeyType.is(value)) return value;
  throw new Error(`--type must be one of ${Object.keys(ApiKeyType.keys).join(', ')}`);
};

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/** An ISO 8601 date-time with a time zone (`Z` or `±hh:mm`), on a real calendar day. */
export const parseDateTime = (option: string, value: string): Date => {
  const match = ISO_DATE_TIME.exec(value.trim());
  const problem = new Error(`${option} must be an ISO 8601 date-time with a time zone, e.g. 2030-01-31T00:00:00Z`);
  if (!match) throw problem;
  const [, y, mo, d, h, mi, s, oh, om] = match.map((part) => (part === undefined ? 0 : Number(part)));
  const day = new Date(Date.UTC(y!, mo! - 1, d!));
  const calendarDay = day.getUTCFullYear() === y && day.getUTCMonth() === mo! - 1 && day.getUTCDate() === d;
  if (!calendarDay || h! > 23 || mi! > 59 || s! > 59 || oh! > 23 || om! > 59) throw problem;
  const at = new Date(value.trim());
  if (Number.isNaN(at.getTime())) throw problem;
  return at;
};

/** Exactly what `all` gives, in words; else the list (so a key holding `contacts:erase` always names it). */
const describePermissions = (permissions: readonly string[]): string =>
  permissions.length === SPECIFICATION_PERMISSIONS.length && SPECIFICATION_PERMISSIONS.every((permission) => permissions.includes(permission))
    ? 'all permissions but contacts:erase'
    : permissions.join(',');

export const registerKeys: RegisterCommands = (program, context) => {
  const keys = program.command('keys').description('manage API keys');

  keys
    .command('create')
    .description('issue an API key (the key is printed once; only its hash is stored)')
    .requiredOption('--company <id>', 'id of an existing company')
    .requiredOption('--permissions <list>', PERMISSIONS_HELP)
    .option('--name <name>', 'a label to tell the key apart, e.g. "Zapier production" (default: none)')
    .option('--type <type>', 'generic, custom, zapier or make', 'generic')
    .option('--expires-at <iso>', 'expiry, a future ISO 8601 date-time (default: never)')
    .option('--json', 'print one JSON document')
    .action(async (options: { company: string; name?: string; permissions: string; type: string; expiresAt?: string; json?: boolean }) => {
      const name = options.name === undefined ? null : decodeOption(ApiKeyName, '--name', options.name);
      const permissions = parsePermissions(options.permissions);
      const type = parseKeyType(options.type);
      const expiresAt = options.expiresAt === undefined ? null : parseDateTime('--expires-at', options.expiresAt);
      const issued = await withStores(context, ({ eventStore }) =>
        issueApiKey(cliCommandDeps(eventStore), { companyId: options.company, name, type, permissions, expiresAt, metadata: cliMetadata() }),
      );
      if (E.isLeft(issued)) {
        const error = issued.left;
        throw new Error(error.kind === 'CompanyNotFound' ? describeCompanyError(error) : describeApiKeyError(error));
      }
      const key = issued.right;
      print(
        context,
        options.json === true,
        { id: key.keyId, key: key.key, companyId: key.companyId, name: key.name, type: key.type, permissions: key.permissions, expiresAt: key.expiresAt },
        `Created API key ${key.keyId}${key.name === null ? '' : ` "${key.name}"`} for company ${key.companyId} (${key.type}, ${describePermissions(key.permissions)}, ` +
          `expires ${key.expiresAt ?? 'never'}): ${key.key}  (shown only now; store it safely)`,
      );
    });

  keys
    .command('revoke')
    .description('revoke an API key (a running server refuses it within a second)')
    .argument('<keyId>', 'id of the key')
    .option('--json', 'print one JSON document')
    .action(async (keyId: string, options: { json?: boolean }) => {
      const revoked = await withStores(context, ({ eventStore }) =>
        revokeApiKey(cliCommandDeps(eventStore), { keyId, metadata: cliMetadata() }),
      );
      if (E.isLeft(revoked)) throw new Error(describeApiKeyError(revoked.left));
      const { revokedAt } = revoked.right;
      print(context, options.json === true, { id: keyId, revoked: true, revokedAt }, `Revoked API key ${keyId} at ${revokedAt}`);
    });

  keys
    .command('list')
    .description("list a company's API keys (hints only, never the keys)")
    .requiredOption('--company <id>', 'id of an existing company')
    .option('--json', 'print one JSON document')
    .action(async (options: { company: string; json?: boolean }) => {
      const docs = await withStores(context, async (stores, config) => {
        await requireCompany(stores.eventStore, options.company);
        return listCompanyDocuments(context, stores, config, apiKeysProjection, options.company);
      });
      const listed = docs.map((doc) => ({
        id: doc.id,
        companyId: doc.companyId,
        name: apiKeyNameOf(doc),
        type: doc.type,
        permissions: doc.permissions,
        expiresAt: doc.expiresAt,
        revokedAt: doc.revokedAt,
        keyHint: doc.keyHint,
        createdAt: doc.createdAt,
      }));
      if (options.json === true) {
        print(context, true, listed, '');
        return;
      }
      if (listed.length === 0) {
        context.out(`No API keys for company ${options.company}`);
        return;
      }
      for (const key of listed) {
        const status = key.revokedAt ? `revoked ${key.revokedAt}` : 'active';
        context.out(
          `${key.id}  ${key.keyHint}  ${key.name === null ? '(no name)' : `"${key.name}"`}  ${key.type}  ${describePermissions(key.permissions)}  ` +
            `created ${key.createdAt}  expires ${key.expiresAt ?? 'never'}  ${status}`,
        );
      }
    });
};
