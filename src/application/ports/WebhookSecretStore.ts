/** A secret as the store keeps it: the secret itself, or (SECRETS_KEY) the secret encrypted. */
export interface StoredSecret {
  readonly subscriptionId: string;
  readonly stored: string;
}

/**
 * Where the signing secret of each webhook subscription is kept, and nowhere
 * else: never in an event, a read model, a response after the subscribe one, or a
 * log. The dispatcher reads it to sign each delivery, so it is kept as is (a hash
 * could not sign); the store holds nothing but secrets, so it can be protected,
 * backed up and wiped on its own.
 *
 * Adapters keep an opaque string per subscription. The composition root wraps
 * whichever adapter it picks in `EncryptedWebhookSecretStore`, which encrypts on
 * `put` and decrypts on `get`; `storedPage` and `replaceStored` work on the string
 * as kept, for that decorator's re-encryption of existing values.
 */
export interface WebhookSecretStore {
  /** Stores (or replaces) the secret of a subscription. */
  put(subscriptionId: string, secret: string): Promise<void>;
  /** The secret, or null when the subscription has none (unknown, or deleted). */
  get(subscriptionId: string): Promise<string | null>;
  /** Forgets the secret; deleting a missing one is not an error. */
  delete(subscriptionId: string): Promise<void>;
  /** Up to `limit` values as kept, by subscription id ascending, after `after` (null: from the first). */
  storedPage(after: string | null, limit: number): Promise<readonly StoredSecret[]>;
  /**
   * Replaces the value kept for a subscription with `next` only if it is still
   * `expected` (a put or a delete in between wins); true when it replaced it.
   */
  replaceStored(subscriptionId: string, expected: string, next: string): Promise<boolean>;
  /** Releases what the store itself opened (a shared connection stays open). */
  close(): Promise<void>;
}
