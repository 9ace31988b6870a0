import type { Collection, Db } from 'mongodb';
import type { StoredSecret, WebhookSecretStore } from '../../application/ports/WebhookSecretStore.js';

/** The collection of webhook secrets, beside the read models (never a read model's name). */
export const WEBHOOK_SECRETS_COLLECTION = 'webhookSecrets';

interface SecretDocument {
  /** The subscription id. */
  _id: string;
  secret: string;
}

/**
 * Production: webhook secrets in MongoDB, one document per subscription keyed by
 * its id, so every API instance and the dispatcher see the same secrets. The
 * client belongs to the read-model store, which closes it.
 */
export class MongoWebhookSecretStore implements WebhookSecretStore {
  private readonly secrets: Collection<SecretDocument>;

  constructor(db: Db, collection: string = WEBHOOK_SECRETS_COLLECTION) {
    this.secrets = db.collection<SecretDocument>(collection);
  }

  async put(subscriptionId: string, secret: string): Promise<void> {
    await this.secrets.replaceOne({ _id: subscriptionId }, { secret }, { upsert: true });
  }

  async get(subscriptionId: string): Promise<string | null> {
    const found = await this.secrets.findOne({ _id: subscriptionId }, { projection: { secret: 1 } });
    return found?.secret ?? null;
  }

  async delete(subscriptionId: string): Promise<void> {
    await this.secrets.deleteOne({ _id: subscriptionId });
  }

  async storedPage(after: string | null, limit: number): Promise<readonly StoredSecret[]> {
    const found = await this.secrets
      .find(after === null ? {} : { _id: { $gt: after } })
      .sort({ _id: 1 })
      .limit(limit)
      .toArray();
    return found.map((document) => ({ subscriptionId: document._id, stored: document.secret }));
  }

  async replaceStored(subscriptionId: string, expected: string, next: string): Promise<boolean> {
    const { matchedCount } = await this.secrets.updateOne({ _id: subscriptionId, secret: expected }, { $set: { secret: next } });
    return matchedCount === 1;
  }

  async close(): Promise<void> {
    // The MongoDB client is the read-model store's; it closes it.
  }
}
