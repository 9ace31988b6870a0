import type { StoredSecret, WebhookSecretStore } from '../ports/WebhookSecretStore.js';
import type { SecretsKeyring } from './SecretsKeyring.js';

/**
 * Webhook secrets encrypted at rest, over any adapter of the port (SQLite,
 * MongoDB, PostgreSQL): the composition root wraps whichever it picks, so no
 * adapter has code of its own for it and each keeps an opaque string. `put`
 * encrypts under the current key (in the clear without SECRETS_KEY); `get`
 * decrypts with whichever key of the ring sealed the value, reads a value kept in
 * the clear as it is, and throws `UnreadableSecretError` for one it cannot open,
 * so nothing is ever signed with a wrong secret. `storedPage` and `replaceStored`
 * pass the kept values through, for `encryptStoredSecrets`.
 */
export class EncryptedWebhookSecretStore implements WebhookSecretStore {
  constructor(
    private readonly inner: WebhookSecretStore,
    readonly keyring: SecretsKeyring,
  ) {}

  async put(subscriptionId: string, secret: string): Promise<void> {
    await this.inner.put(subscriptionId, this.keyring.seal(subscriptionId, secret));
  }

  async get(subscriptionId: string): Promise<string | null> {
    const stored = await this.inner.get(subscriptionId);
    return stored === null ? null : this.keyring.open(subscriptionId, stored);
  }

  delete(subscriptionId: string): Promise<void> {
    return this.inner.delete(subscriptionId);
  }

  storedPage(after: string | null, limit: number): Promise<readonly StoredSecret[]> {
    return this.inner.storedPage(after, limit);
  }

  replaceStored(subscriptionId: string, expected: string, next: string): Promise<boolean> {
    return this.inner.replaceStored(subscriptionId, expected, next);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
