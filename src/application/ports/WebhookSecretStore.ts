/**
 * Where the signing secret of each webhook subscription is kept, and nowhere
 * else: never in an event, a read model, a response after the subscribe one, or a
 * log. The dispatcher reads it to sign each delivery, so it is kept as is (a hash
 * could not sign); the store holds nothing but secrets, so it can be protected,
 * backed up and wiped on its own.
 */
export interface WebhookSecretStore {
  /** Stores (or replaces) the secret of a subscription. */
  put(subscriptionId: string, secret: string): Promise<void>;
  /** The secret, or null when the subscription has none (unknown, or deleted). */
  get(subscriptionId: string): Promise<string | null>;
  /** Forgets the secret; deleting a missing one is not an error. */
  delete(subscriptionId: string): Promise<void>;
  /** Releases what the store itself opened (a shared connection stays open). */
  close(): Promise<void>;
}
