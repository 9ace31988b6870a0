import type { WebhookSecretStore } from '../ports/WebhookSecretStore.js';
import type { SecretsKeyring } from './SecretsKeyring.js';
import { UnreadableSecretError } from './UnreadableSecretError.js';

/** What one pass over the stored secrets found and did. */
export interface EncryptionReport {
  /** The current key's id; null without SECRETS_KEY. */
  readonly keyId: string | null;
  readonly examined: number;
  /** Already encrypted under the current key (each checked to decrypt). */
  readonly alreadyCurrent: number;
  /** Were in the clear, now encrypted. */
  readonly encrypted: number;
  /** Were encrypted under a previous key, now under the current one. */
  readonly reencrypted: number;
  /** Left in the clear: no SECRETS_KEY. */
  readonly inTheClear: number;
  /** Values no key of the ring opens (with `forgetUnreadable`, deleted). */
  readonly unreadable: readonly { readonly subscriptionId: string; readonly reason: string }[];
  readonly forgotten: number;
}

const PAGE = 500;

/**
 * One pass over every stored webhook secret, a page at a time: a value in the clear
 * is encrypted under the current key, one under a previous key is encrypted again
 * under the current one, one under the current key is checked to decrypt. Each
 * change replaces the value only if it is still the one read, so a subscription
 * made or ended meanwhile (by another process) keeps what that wrote. Without a
 * current key nothing is changed, and the values in the clear are counted.
 * Values no key opens are reported (never thrown): the caller decides; with
 * `forgetUnreadable` they are deleted (their subscriptions can no longer be
 * signed: each delivery then fails without being sent, until the subscriber
 * subscribes again).
 */
export const encryptStoredSecrets = async (
  store: WebhookSecretStore,
  keyring: SecretsKeyring,
  options: { readonly forgetUnreadable?: boolean } = {},
): Promise<EncryptionReport> => {
  const counts = { examined: 0, alreadyCurrent: 0, encrypted: 0, reencrypted: 0, inTheClear: 0, forgotten: 0 };
  const unreadable: { subscriptionId: string; reason: string }[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await store.storedPage(after, PAGE);
    for (const { subscriptionId, stored } of page) {
      counts.examined += 1;
      const form = keyring.formOf(stored);
      let secret: string;
      try {
        secret = keyring.open(subscriptionId, stored);
      } catch (error) {
        if (!(error instanceof UnreadableSecretError)) throw error;
        unreadable.push({ subscriptionId, reason: error.reason });
        if (options.forgetUnreadable) {
          await store.delete(subscriptionId);
          counts.forgotten += 1;
        }
        continue;
      }
      if (form === 'current') counts.alreadyCurrent += 1;
      else if (!keyring.current) counts.inTheClear += 1;
      else if (await store.replaceStored(subscriptionId, stored, keyring.seal(subscriptionId, secret))) {
        counts[form === 'plain' ? 'encrypted' : 'reencrypted'] += 1;
      }
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.subscriptionId;
  }
  return { keyId: keyring.current?.id ?? null, ...counts, unreadable };
};
