import type { Collection, Db } from 'mongodb';
import type { WebhookSecretStore } from '../../application/ports/WebhookSecretStore.js';

/** The collection of webhook secrets, beside the read models (never a read model's name). */
export const WEBHOOK_SECRETS_COLLECTION = 'webhookSecrets';

interface StoredSecret {
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
  private readonly secrets: Collection<StoredSecret>;

  constructor(db: Db, collection: string = WEBHOOK_SECRETS_COLLECTION) {
    this.secrets = db.collection<StoredSecret>(collection);
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

  async close(): Promise<void> {
    // The MongoDB client is the read-model store's; it closes it.
  }
}
