import { encryptStoredSecrets, type EncryptionReport } from '../../application/secrets/encryptStoredSecrets.js';
import { ConfigError, loadConfig } from '../../config.js';
import { secretsKeyring, unreadableSecretsProblem } from '../../startup/secretsAtRest.js';
import { print, type RegisterCommands } from '../CliContext.js';
import { withStores } from '../withStores.js';

const readable = (report: EncryptionReport): string => {
  const { keyId, examined, encrypted, reencrypted, alreadyCurrent, forgotten, unreadable } = report;
  const lines = [
    `Webhook secrets: ${examined} examined; under key ${keyId}: ${encrypted} encrypted (were in the clear), ` +
      `${reencrypted} encrypted again (were under a previous key), ${alreadyCurrent} already under it.`,
  ];
  if (forgotten > 0) {
    lines.push(`Deleted ${forgotten} secret(s) no key decrypts; these subscriptions must subscribe again:`);
    lines.push(...unreadable.map(({ subscriptionId }) => `  ${subscriptionId}`));
  } else if (unreadable.length === 0) lines.push('No secret is left under a key of SECRETS_KEY_PREVIOUS: it can be removed.');
  return lines.join('\n');
};

/**
 * `chronicle secrets rotate`: the pass every start makes (`secureSecretsAtStart`),
 * on demand and while servers run: every webhook secret in the clear or under a
 * key of SECRETS_KEY_PREVIOUS is encrypted under SECRETS_KEY, so the previous key
 * can be removed without a restart. Secrets no configured key decrypts are listed
 * and the command fails (exit 1), unless `--forget-unreadable` deletes them (a lost
 * key: their subscriptions can no longer be signed, and must subscribe again).
 */
export const registerSecrets: RegisterCommands = (program, context) => {
  const secrets = program.command('secrets').description('webhook signing secrets at rest (SECRETS_KEY)');
  secrets
    .command('rotate')
    .description(
      'encrypt every webhook secret under SECRETS_KEY: those in the clear and those under a key of SECRETS_KEY_PREVIOUS ' +
        '(afterwards SECRETS_KEY_PREVIOUS can be removed)',
    )
    .option('--forget-unreadable', 'delete the secrets no configured key decrypts (a lost key); their subscriptions must subscribe again')
    .option('--json', 'print one JSON document: {"keyId","examined","alreadyCurrent","encrypted","reencrypted","unreadable","forgotten"}')
    .action(async (options: { json?: boolean; forgetUnreadable?: boolean }) => {
      const config = loadConfig(context.env);
      if (!config.secrets.key) throw new ConfigError(['SECRETS_KEY (or SECRETS_KEY_FILE) is not set: there is no key to encrypt webhook secrets with']);
      const report = await withStores(context, (stores) =>
        encryptStoredSecrets(stores.webhookSecrets, secretsKeyring(config), { forgetUnreadable: options.forgetUnreadable === true }),
      );
      const { inTheClear: _none, ...shown } = report;
      print(context, options.json === true, shown, readable(report));
      if (report.unreadable.length > report.forgotten) throw new Error(unreadableSecretsProblem(report));
    });
};
