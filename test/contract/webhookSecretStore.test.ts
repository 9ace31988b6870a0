import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteWebhookSecretStore } from '../../src/adapters/sqlite/SqliteWebhookSecretStore.js';
import type { WebhookSecretStore } from '../../src/application/ports/WebhookSecretStore.js';
import { EncryptedWebhookSecretStore } from '../../src/application/secrets/EncryptedWebhookSecretStore.js';
import { SecretsKeyring } from '../../src/application/secrets/SecretsKeyring.js';
import { generateWebhookSecret } from '../../src/shared/webhookSecret.js';
import { skipLine } from '../support/integration.js';
import { tempDir } from '../support/tempStore.js';
import { encryptedWebhookSecretStoreContract, newSecretKey } from './encryptedWebhookSecretStore.contract.js';
import { webhookSecretStoreContract, type SecretStoreUnderTest } from './webhookSecretStore.contract.js';

/** The same store seen through the encryption decorator, as the composition root wraps every adapter. */
const encrypted = (made: SecretStoreUnderTest): SecretStoreUnderTest => {
  const keyring = new SecretsKeyring(newSecretKey(), [newSecretKey()]);
  const wrap = (store: WebhookSecretStore) => new EncryptedWebhookSecretStore(store, keyring);
  return { store: wrap(made.store), reopen: async () => wrap(await made.reopen()), dispose: made.dispose };
};

/** The SQLite store on a connection of its own, in a fresh file. */
const sqliteSecrets = async (): Promise<SecretStoreUnderTest> => {
  const dir = tempDir('chronicle-secrets-');
  const file = join(dir.path, 'chronicle.sqlite');
  const store = SqliteWebhookSecretStore.open(file);
  return {
    store,
    reopen: async () => SqliteWebhookSecretStore.open(file),
    dispose: async () => {
      await store.close();
      dir.dispose();
    },
  };
};

webhookSecretStoreContract('SQLite (its own connection)', sqliteSecrets);
webhookSecretStoreContract('SQLite, encrypted (SECRETS_KEY)', async () => encrypted(await sqliteSecrets()));
encryptedWebhookSecretStoreContract('SQLite', sqliteSecrets);

webhookSecretStoreContract('SQLite (on the event store’s connection)', async () => {
  const dir = tempDir('chronicle-secrets-');
  const file = join(dir.path, 'chronicle.sqlite');
  const eventStore = SqliteEventStore.open(file);
  const store = new SqliteWebhookSecretStore(eventStore.db);
  return {
    store,
    reopen: async () => SqliteWebhookSecretStore.open(file),
    dispose: async () => {
      // The shared connection is the event store's: closing the secret store leaves it open.
      await store.close();
      await eventStore.close();
      dir.dispose();
    },
  };
});

const mongoUrl = process.env.MONGODB_URL;
if (mongoUrl) {
  const mongoSecrets = async (): Promise<SecretStoreUnderTest> => {
    // A database of its own per test (the read models' one, as in production), dropped afterwards.
    const { MongoReadModelStore } = await import('../../src/adapters/mongodb/MongoReadModelStore.js');
    const { MongoWebhookSecretStore } = await import('../../src/adapters/mongodb/MongoWebhookSecretStore.js');
    const dbName = `chronicle_test_${randomUUID().slice(0, 8)}`;
    const readModels = await MongoReadModelStore.connect(mongoUrl, dbName);
    const others: { close(): Promise<void> }[] = [];
    return {
      store: new MongoWebhookSecretStore(readModels.database),
      reopen: async () => {
        const other = await MongoReadModelStore.connect(mongoUrl, dbName);
        others.push(other);
        return new MongoWebhookSecretStore(other.database);
      },
      dispose: async () => {
        await Promise.all(others.map((other) => other.close()));
        await readModels.dropDatabase();
        await readModels.close();
      },
    };
  };
  webhookSecretStoreContract('MongoDB', mongoSecrets);
  webhookSecretStoreContract('MongoDB, encrypted (SECRETS_KEY)', async () => encrypted(await mongoSecrets()));
  encryptedWebhookSecretStoreContract('MongoDB', mongoSecrets);
} else {
  skipLine('WebhookSecretStore contract: MongoDB', 'MONGODB_URL');
}

describe('generateWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes, never the same twice', () => {
    const secrets = new Set(Array.from({ length: 100 }, generateWebhookSecret));
    expect(secrets.size).to.equal(100);
    for (const secret of secrets) {
      expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).to.have.length(32);
    }
  });
});
