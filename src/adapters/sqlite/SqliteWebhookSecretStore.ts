import type { Statement } from 'better-sqlite3';
import type { StoredSecret, WebhookSecretStore } from '../../application/ports/WebhookSecretStore.js';
import { openSqliteDatabase, type SqliteDatabase } from './openSqliteDatabase.js';
import { withSecureDelete } from './secureDelete.js';
import { whenLockFreeTranslated } from './writeLock.js';

/**
 * Webhook secrets in the embedded SQLite file, in a table of their own
 * (`webhook_secrets`), beside the events but never in them. Every write that
 * replaces or deletes a secret runs with `secure_delete` on (`withSecureDelete`),
 * so a secret deleted, or once kept in the clear and now encrypted, does not
 * linger in the file's free pages.
 */
export class SqliteWebhookSecretStore implements WebhookSecretStore {
  private readonly statements: {
    readonly put: Statement<[string, string]>;
    readonly get: Statement<[string], { secret: string }>;
    readonly delete: Statement<[string]>;
    readonly page: Statement<[string, number], { subscription_id: string; secret: string }>;
    readonly replace: Statement<[string, string, string]>;
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
      page: db.prepare('SELECT subscription_id, secret FROM webhook_secrets WHERE subscription_id > ? ORDER BY subscription_id LIMIT ?'),
      replace: db.prepare('UPDATE webhook_secrets SET secret = ? WHERE subscription_id = ? AND secret = ?'),
    };
  }

  /** Opens (and migrates) the file with a connection of its own. */
  static open(file: string): SqliteWebhookSecretStore {
    return new SqliteWebhookSecretStore(openSqliteDatabase(file), true);
  }


  async put(subscriptionId: string, secret: string): Promise<void> {
    await whenLockFreeTranslated(this.db, () => withSecureDelete(this.db, () => this.statements.put.run(subscriptionId, secret)));
  }

  async get(subscriptionId: string): Promise<string | null> {
    return this.statements.get.get(subscriptionId)?.secret ?? null;
  }

  async delete(subscriptionId: string): Promise<void> {
    await whenLockFreeTranslated(this.db, () => withSecureDelete(this.db, () => this.statements.delete.run(subscriptionId)));
  }

  async storedPage(after: string | null, limit: number): Promise<readonly StoredSecret[]> {
    // '' sorts before every id.
    return this.statements.page.all(after ?? '', limit).map((row) => ({ subscriptionId: row.subscription_id, stored: row.secret }));
  }

  async replaceStored(subscriptionId: string, expected: string, next: string): Promise<boolean> {
    const { changes } = await whenLockFreeTranslated(this.db, () => withSecureDelete(this.db, () => this.statements.replace.run(next, subscriptionId, expected)));
    return changes === 1;
  }

  async close(): Promise<void> {
    if (this.ownsDatabase && this.db.open) this.db.close();
  }
}
