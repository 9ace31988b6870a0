import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import type { WebhookSecretStore } from '../../src/application/ports/WebhookSecretStore.js';
import { EncryptedWebhookSecretStore } from '../../src/application/secrets/EncryptedWebhookSecretStore.js';
import { SecretsKeyring } from '../../src/application/secrets/SecretsKeyring.js';
import { UnreadableSecretError } from '../../src/application/secrets/UnreadableSecretError.js';
import { encryptStoredSecrets } from '../../src/application/secrets/encryptStoredSecrets.js';
import { SecretKey } from '../../src/shared/SecretKey.js';
import { decodeSigningSecrets, encodeRotatedSecrets, generateWebhookSecret, secretsAt } from '../../src/shared/webhookSecret.js';

/** A new random key, as `openssl rand -base64 32` would give. */
export const newSecretKey = (): SecretKey => {
  const key = SecretKey.fromText(randomBytes(32).toString('base64'));
  if (E.isLeft(key)) throw new Error(key.left);
  return key.right;
};

export interface InnerStoreUnderTest {
  /** An adapter of the port, as the composition root opens it (values kept as given). */
  readonly store: WebhookSecretStore;
  readonly dispose: () => Promise<void>;
}

/** The value `inner` keeps for a subscription. */
const keptBy = async (inner: WebhookSecretStore, subscriptionId: string): Promise<string | undefined> =>
  (await inner.storedPage(null, 100_000)).find((entry) => entry.subscriptionId === subscriptionId)?.stored;

const unreadable = async (read: Promise<unknown>): Promise<UnreadableSecretError> => {
  try {
    await read;
  } catch (error) {
    expect(error).to.be.instanceOf(UnreadableSecretError);
    return error as UnreadableSecretError;
  }
  return expect.fail('expected an UnreadableSecretError');
};

/**
 * What `EncryptedWebhookSecretStore` adds over an adapter: what the adapter keeps
 * (never the secret), values kept in the clear before, rotation, and refusals. Run
 * over every adapter (the port's own contract runs over the decorator too).
 */
export const encryptedWebhookSecretStoreContract = (name: string, make: () => Promise<InnerStoreUnderTest>): void => {
  describe(`EncryptedWebhookSecretStore over ${name}`, () => {
    let made: InnerStoreUnderTest;
    const id = (): string => randomUUID();
    const [keyA, keyB] = [newSecretKey(), newSecretKey()];
    const over = (keyring: SecretsKeyring) => new EncryptedWebhookSecretStore(made.store, keyring);
    beforeEach(async () => (made = await make()));
    afterEach(() => made.dispose());

    it('keeps the secret encrypted, never in the clear, a fresh nonce each time', async () => {
      const store = over(new SecretsKeyring(keyA));
      const [a, b] = [id(), id()];
      const secret = generateWebhookSecret();
      await store.put(a, secret);
      await store.put(b, secret);
      const [keptA, keptB] = [await keptBy(made.store, a), await keptBy(made.store, b)];
      for (const kept of [keptA!, keptB!]) {
        expect(kept).to.match(new RegExp(`^enc:v1:${keyA.id}:[A-Za-z0-9_-]+$`));
        expect(kept).not.to.include(secret.slice('whsec_'.length));
        expect(Buffer.from(kept.split(':')[3]!, 'base64url').toString('latin1')).not.to.include(secret.slice('whsec_'.length));
      }
      expect(keptA).not.to.equal(keptB);
      expect(await store.get(a)).to.equal(secret);
      expect(await store.get(b)).to.equal(secret);
    });

    it('keeps a rotated subscription’s two secrets as one value, encrypted whole: neither in the clear, both read back', async () => {
      const store = over(new SecretsKeyring(keyA));
      const a = id();
      const [previous, next] = [generateWebhookSecret(), generateWebhookSecret()];
      const expiresAt = '2026-03-05T10:00:00.000Z';
      await store.put(a, encodeRotatedSecrets(next, { secret: previous, expiresAt }));
      const kept = (await keptBy(made.store, a))!;
      expect(kept).to.match(new RegExp(`^enc:v1:${keyA.id}:`));
      for (const secret of [previous, next]) expect(kept).not.to.include(secret.slice('whsec_'.length));
      const read = decodeSigningSecrets((await store.get(a))!);
      expect(read).to.deep.equal({ current: next, previous: { secret: previous, expiresAt }, rotated: true });
      expect(secretsAt(read, new Date('2026-03-05T09:59:59.999Z'))).to.deep.equal([next, previous]);
      expect(secretsAt(read, new Date(expiresAt))).to.deep.equal([next]);
    });

    it('reads a secret kept in the clear (before SECRETS_KEY), and encrypts it in one pass', async () => {
      const a = id();
      const secret = generateWebhookSecret();
      await made.store.put(a, secret);
      const store = over(new SecretsKeyring(keyA));
      expect(await store.get(a)).to.equal(secret);
      const report = await encryptStoredSecrets(store, store.keyring);
      expect(report).to.include({ keyId: keyA.id, reencrypted: 0, forgotten: 0 });
      expect(report.encrypted).to.be.at.least(1);
      expect(report.unreadable).to.deep.equal([]);
      expect(await keptBy(made.store, a)).to.match(new RegExp(`^enc:v1:${keyA.id}:`));
      expect(await store.get(a)).to.equal(secret);
      // A second pass finds nothing to do.
      const again = await encryptStoredSecrets(store, store.keyring);
      expect(again).to.include({ encrypted: 0, reencrypted: 0 });
    });

    it('rotates: the new key with the old one as previous reads both, a pass encrypts all under the new one', async () => {
      const [a, b] = [id(), id()];
      const [secretA, secretB] = [generateWebhookSecret(), generateWebhookSecret()];
      await over(new SecretsKeyring(keyA)).put(a, secretA);
      const rotated = over(new SecretsKeyring(keyB, [keyA]));
      await rotated.put(b, secretB);
      expect(await rotated.get(a)).to.equal(secretA);
      expect(await rotated.get(b)).to.equal(secretB);
      const report = await encryptStoredSecrets(rotated, rotated.keyring);
      expect(report.reencrypted).to.be.at.least(1);
      expect(await keptBy(made.store, a)).to.match(new RegExp(`^enc:v1:${keyB.id}:`));
      // The old key can go: the new one alone reads everything; the old one alone reads nothing.
      const newOnly = over(new SecretsKeyring(keyB));
      expect(await newOnly.get(a)).to.equal(secretA);
      expect(await newOnly.get(b)).to.equal(secretB);
      const error = await unreadable(over(new SecretsKeyring(keyA)).get(a));
      expect(error.message).to.include(keyB.id).and.include('neither SECRETS_KEY').and.not.include(secretA);
    });

    it('refuses, loudly and without the secret, what no key opens: no key, another key, an altered or moved value', async () => {
      const [a, b] = [id(), id()];
      const secret = generateWebhookSecret();
      await over(new SecretsKeyring(keyA)).put(a, secret);
      const kept = (await keptBy(made.store, a))!;

      expect((await unreadable(over(new SecretsKeyring(undefined)).get(a))).message).to.include('SECRETS_KEY is not set');
      expect((await unreadable(over(new SecretsKeyring(keyB)).get(a))).message).to.include(keyA.id);

      const payload = Buffer.from(kept.split(':')[3]!, 'base64url');
      payload[payload.length - 1]! ^= 1;
      await made.store.put(a, `enc:v1:${keyA.id}:${payload.toString('base64url')}`);
      expect((await unreadable(over(new SecretsKeyring(keyA)).get(a))).message).to.include('does not decrypt');

      // Another subscription's value copied over: bound to its subscription, it does not decrypt.
      await made.store.put(b, kept);
      expect((await unreadable(over(new SecretsKeyring(keyA)).get(b))).subscriptionId).to.equal(b);
    });

    it('a pass reports what no key opens, and deletes it only when told to', async () => {
      const [lost, kept] = [id(), id()];
      await over(new SecretsKeyring(keyA)).put(lost, generateWebhookSecret());
      const secret = generateWebhookSecret();
      const store = over(new SecretsKeyring(keyB));
      await store.put(kept, secret);
      const report = await encryptStoredSecrets(store, store.keyring);
      expect(report.unreadable.map((entry) => entry.subscriptionId)).to.include(lost);
      expect(await keptBy(made.store, lost)).to.not.equal(undefined);
      const forgetting = await encryptStoredSecrets(store, store.keyring, { forgetUnreadable: true });
      expect(forgetting.forgotten).to.be.at.least(1);
      expect(await keptBy(made.store, lost)).to.equal(undefined);
      expect(await store.get(kept)).to.equal(secret);
    });

    it('without a key keeps secrets in the clear, and refuses one that would look encrypted', async () => {
      const a = id();
      const store = over(new SecretsKeyring(undefined));
      await store.put(a, 'whsec_plain');
      expect(await keptBy(made.store, a)).to.equal('whsec_plain');
      let refused: unknown;
      await store.put(id(), 'enc:v1:x:y').catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(Error);
    });
  });
};
