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
    const id = (): string => randomUUID();
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

    it('lists the values kept, a page at a time by subscription id', async () => {
      const ids = Array.from({ length: 5 }, id).sort();
      for (const [i, subscriptionId] of ids.entries()) await made.store.put(subscriptionId, `whsec_${i}`);
      // Other tests' secrets may share the storage (a shared server): only ours are looked at.
      const ours = (page: readonly { subscriptionId: string }[]) => page.filter((entry) => ids.includes(entry.subscriptionId));
      const first = await made.store.storedPage(null, 1000);
      expect(first.map((entry) => entry.subscriptionId)).to.deep.equal([...first.map((entry) => entry.subscriptionId)].sort());
      expect(ours(first).map((entry) => entry.subscriptionId)).to.deep.equal(ids);
      const afterSecond = ours(await made.store.storedPage(ids[1]!, 1000));
      expect(afterSecond.map((entry) => entry.subscriptionId)).to.deep.equal(ids.slice(2));
      const two = await made.store.storedPage(ids[0]!, 2);
      expect(two).to.have.length(2);
      expect(two.every((entry) => entry.subscriptionId > ids[0]!)).to.equal(true);
      // Values as kept, whatever they are: each is given back by get through the same store.
      for (const entry of ours(first)) expect(await made.store.get(entry.subscriptionId)).to.equal(`whsec_${ids.indexOf(entry.subscriptionId)}`);
    });

    it('replaces a kept value only while it is still the one expected', async () => {
      const a = id();
      await made.store.put(a, 'whsec_a');
      const [kept] = (await made.store.storedPage(null, 100_000)).filter((entry) => entry.subscriptionId === a);
      expect(await made.store.replaceStored(a, `${kept!.stored}x`, 'whsec_other')).to.equal(false);
      expect(await made.store.get(a)).to.equal('whsec_a');
      const next = (await made.store.storedPage(null, 100_000)).find((entry) => entry.subscriptionId === a)!.stored;
      expect(await made.store.replaceStored(a, next, next)).to.equal(true);
      expect(await made.store.get(a)).to.equal('whsec_a');
      await made.store.delete(a);
      expect(await made.store.replaceStored(a, next, next)).to.equal(false);
      expect(await made.store.get(a)).to.equal(null);
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
