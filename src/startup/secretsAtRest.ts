import type { Logger } from '../application/ports/Logger.js';
import { EncryptedWebhookSecretStore } from '../application/secrets/EncryptedWebhookSecretStore.js';
import { SecretsKeyring } from '../application/secrets/SecretsKeyring.js';
import { encryptStoredSecrets, type EncryptionReport } from '../application/secrets/encryptStoredSecrets.js';
import { ConfigError, type Config } from '../config.js';
import type { Stores } from './Stores.js';

/** The keyring of the configuration: SECRETS_KEY (or SECRETS_KEY_FILE) and SECRETS_KEY_PREVIOUS. */
export const secretsKeyring = (config: Pick<Config, 'secrets'>): SecretsKeyring =>
  new SecretsKeyring(config.secrets.key, config.secrets.previousKeys);

/** `stores` with their webhook secrets encrypted at rest (`EncryptedWebhookSecretStore`), whichever engine keeps them. */
export const withEncryptedSecrets = (stores: Stores, config: Pick<Config, 'secrets'>): Stores => ({
  ...stores,
  webhookSecrets: new EncryptedWebhookSecretStore(stores.webhookSecrets, secretsKeyring(config)),
});

/** Values no key opens, as a configuration problem (exit 2) that says what to do. */
export const unreadableSecretsProblem = (report: EncryptionReport): string => {
  const { unreadable } = report;
  const shown = unreadable.slice(0, 3).map(({ subscriptionId, reason }) => `subscription ${subscriptionId}: ${reason}`);
  const more = unreadable.length > shown.length ? `; and ${unreadable.length - shown.length} more` : '';
  return (
    `SECRETS_KEY cannot decrypt ${unreadable.length} stored webhook secret(s) (${shown.join('; ')}${more}). ` +
    'Set the key they were encrypted with (as SECRETS_KEY, or in SECRETS_KEY_PREVIOUS after a rotation); if it is lost, ' +
    '`npm run chronicle -- secrets rotate --forget-unreadable` deletes them and their subscriptions must subscribe again'
  );
};

/**
 * At start: every stored webhook secret in the clear, or under a key of
 * SECRETS_KEY_PREVIOUS, encrypted under SECRETS_KEY (`encryptStoredSecrets`);
 * a secret that no configured key decrypts stops the start as a configuration
 * error (exit 2), before anything could be signed with it. Without a key, one
 * warning that secrets are kept in the clear. Logs counts and key ids only.
 */
export const secureSecretsAtStart = async (stores: Stores, config: Pick<Config, 'secrets'>, logger: Logger): Promise<void> => {
  const report = await encryptStoredSecrets(stores.webhookSecrets, secretsKeyring(config));
  if (report.unreadable.length > 0) throw new ConfigError([unreadableSecretsProblem(report)]);
  const { keyId, encrypted, reencrypted, alreadyCurrent, inTheClear } = report;
  if (keyId === null) {
    logger.warn(
      { secretsInTheClear: inTheClear },
      'webhook signing secrets are stored in the clear: set SECRETS_KEY or SECRETS_KEY_FILE to encrypt them at rest',
    );
    return;
  }
  if (encrypted + reencrypted > 0) logger.info({ keyId, encrypted, reencrypted, alreadyCurrent }, 'webhook signing secrets encrypted under SECRETS_KEY');
  if (config.secrets.previousKeys.length > 0) {
    logger.info({ keyId, reencrypted }, 'no webhook secret is left under a key of SECRETS_KEY_PREVIOUS: it can be removed');
  }
};
