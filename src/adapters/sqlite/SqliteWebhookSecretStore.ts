import type { Statement } from 'better-sqlite3';
import type { WebhookSecretStore } from '../../application/ports/WebhookSecretStore.js';
import { openSqliteDatabase, type SqliteDatabase } from './openSqliteDatabase.js';
import { whenLockFreeTranslated } from './writeLock.js';

/**
 * Webhook secrets in the embedded SQLite file, in a table of their own
 * (`webhook_secrets`), beside the events but never in them.
 */
export class SqliteWebhookSecretStore implements WebhookSecretStore {
  private readonly statements: {
    readonly put: Statement<[string, string]>;
    readonly get: Statement<[string], { secret: string }>;
    readonly delete: Statement<[string]>;
  };

  /** On an open (migrated) database; `ownsDatabase`: close it with the store. */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly ownsDatabase = false,
  ) {
    this.statements = {
      put: db.prepare(
        'INSERT INTO webhook_secrets (subscription_id, secret) VALUES (?, ?) ON CONFLICT (subscription_id) DO UPDATE SET secret = excluded.secret',
      ),
      get: db.prepare('SELECT secret FROM webhook_secrets WHERE subscription_id = ?'),
      delete: db.prepare('DELETE FROM webhook_secrets WHERE subscription_id = ?'),
    };
  }

  /** Opens (and migrates) the file with a connection of its own. */
  static open(file: string): SqliteWebhookSecretStore {
    return new SqliteWebhookSecretStore(openSqliteDatabase(file), true);
  }

  async put(subscriptionId: string, secret: string): Promise<void> {
    await whenLockFreeTranslated(this.db, () => this.statements.put.run(subscriptionId, secret));
  }

  async get(subscriptionId: string): Promise<string | null> {
    return this.statements.get.get(subscriptionId)?.secret ?? null;
  }

  async delete(subscriptionId: string): Promise<void> {
    await whenLockFreeTranslated(this.db, () => this.statements.delete.run(subscriptionId));
  }

  async close(): Promise<void> {
    if (this.ownsDatabase && this.db.open) this.db.close();
  }
}
