import * as E from 'fp-ts/lib/Either.js';
import { issueAdminToken, revokeAdminToken, AdminTokenName, describeAdminTokenError, adminTokenOf, adminTokensProjection } from '../../features/adminTokens/index.js';
import { PLATFORM_SCOPE } from '../../features/companies/index.js';
import { print, type RegisterCommands } from '../CliContext.js';
import { cliCommandDeps, cliMetadata } from '../cliWrites.js';
import { listCompanyDocuments } from '../listCompanyDocuments.js';
import { withStores } from '../withStores.js';
import { decodeOption } from './companies.js';

/** `chronicle admin-tokens`: the platform backend's tokens for the admin API (`/admin`). */
export const registerAdminTokens: RegisterCommands = (program, context) => {
  const tokens = program.command('admin-tokens').description("manage the platform's tokens for the admin API (/admin)");

  tokens
    .command('create')
    .description('issue an admin token (the token is printed once; only its hash is stored)')
    .requiredOption('--name <name>', 'what the token is for, e.g. "billing backend"')
    .option('--json', 'print one JSON document')
    .action(async (options: { name: string; json?: boolean }) => {
      const name = decodeOption(AdminTokenName, '--name', options.name);
      const issued = await withStores(context, ({ eventStore }) => issueAdminToken(cliCommandDeps(eventStore), { name, metadata: cliMetadata() }));
      if (E.isLeft(issued)) throw new Error(describeAdminTokenError(issued.left));
      const { tokenId, token, createdAt } = issued.right;
      print(
        context,
        options.json === true,
        { id: tokenId, token, name: issued.right.name, createdAt },
        `Created admin token ${tokenId} "${issued.right.name}": ${token}  (shown only now; store it safely)`,
      );
    });

  tokens
    .command('list')
    .description('list every admin token, oldest first (ids, names and hints, never the tokens)')
    .option('--json', 'print one JSON document')
    .action(async (options: { json?: boolean }) => {
      const docs = await withStores(context, (stores, config) => listCompanyDocuments(context, stores, config, adminTokensProjection, PLATFORM_SCOPE));
      const listed = docs.map(adminTokenOf);
      if (options.json === true) {
        print(context, true, listed, '');
        return;
      }
      if (listed.length === 0) {
        context.out('No admin tokens');
        return;
      }
      for (const token of listed) {
        const status = token.revokedAt === null ? 'active' : `revoked ${token.revokedAt}`;
        context.out(`${token.id}  ${token.tokenHint}  "${token.name}"  created ${token.createdAt}  ${status}`);
      }
    });

  tokens
    .command('revoke')
    .description('revoke an admin token (a running server refuses it within a second) and end the console sessions its links opened')
    .argument('<id>', 'id of the token')
    .option('--json', 'print one JSON document')
    .action(async (tokenId: string, options: { json?: boolean }) => {
      const revoked = await withStores(context, ({ eventStore, consoleSessions }) =>
        revokeAdminToken({ ...cliCommandDeps(eventStore), sessions: consoleSessions }, { tokenId, metadata: cliMetadata() }),
      );
      if (E.isLeft(revoked)) throw new Error(describeAdminTokenError(revoked.left));
      const { revokedAt, name, endedConsoleSessions } = revoked.right;
      print(
        context,
        options.json === true,
        { id: tokenId, revoked: true, revokedAt, endedConsoleSessions },
        `Revoked admin token ${tokenId} "${name}" at ${revokedAt}; ended ${endedConsoleSessions} console session${endedConsoleSessions === 1 ? '' : 's'} its links had opened`,
      );
    });
};
