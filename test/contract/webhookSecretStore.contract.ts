import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { WebhookSecretStore } from '../../src/application/ports/WebhookSecretStore.js';
import { generateWebhookSecret } from '../../src/shared/webhookSecret.js';

export interface SecretStoreUnderTest {
  readonly store: WebhookSecretStore;
  /** Another store on the same storage (another process, or a restart). */
  readonly reopen: () => Promise<WebhookSecretStore>;
  readonly dispose: () => Promise<void>;
}

/**
 * The WebhookSecretStore contract, run for every adapter. Subscription ids are
 * unique per test, so a shared server is fine.
 */
export const webhookSecretStoreContract = (name: string, make: () => Promise<SecretStoreUnderTest>): void => {
  describe(`WebhookSecretStore: ${name}`, () => {
    let made: SecretStoreUnderTest;
    const id = () => randomUUID();
    beforeEach(async () => (made = await make()));
    afterEach(() => made.dispose());

    it('gives back the secret put for a subscription', async () => {
      const [a, b] = [id(), id()];
      const [secretA, secretB] = [generateWebhookSecret(), generateWebhookSecret()];
      await made.store.put(a, secretA);
      await made.store.put(b, secretB);
      expect(await made.store.get(a)).to.equal(secretA);
      expect(await made.store.get(b)).to.equal(secretB);
    });

    it('answers null for a subscription without a secret', async () => {
      expect(await made.store.get(id())).to.equal(null);
    });

    it('replaces the secret on a second put', async () => {
      const a = id();
      await made.store.put(a, 'whsec_first');
      await made.store.put(a, 'whsec_second');
      expect(await made.store.get(a)).to.equal('whsec_second');
    });

    it('forgets a deleted secret, and deleting a missing one is not an error', async () => {
      const [a, b] = [id(), id()];
      await made.store.put(a, 'whsec_a');
      await made.store.put(b, 'whsec_b');
      await made.store.delete(a);
      await made.store.delete(a);
      await made.store.delete(id());
      expect(await made.store.get(a)).to.equal(null);
      expect(await made.store.get(b)).to.equal('whsec_b');
    });

    it('keeps secrets for another store on the same storage (a restart, another process)', async () => {
      const a = id();
      const secret = generateWebhookSecret();
      await made.store.put(a, secret);
      const other = await made.reopen();
      try {
        expect(await other.get(a)).to.equal(secret);
      } finally {
        await other.close();
      }
    });
  });
};
