import type pg from 'pg';
import type { StoredSecret, WebhookSecretStore } from '../../application/ports/WebhookSecretStore.js';
import { query } from './postgresPool.js';

/**
 * Webhook secrets in the `webhook_secrets` table, beside the events but never in
 * them, on the pool every PostgreSQL store of the process shares.
 */
export class PostgresWebhookSecretStore implements WebhookSecretStore {
  constructor(private readonly pool: pg.Pool) {}

  async put(subscriptionId: string, secret: string): Promise<void> {
    await query(
      this.pool,
      'INSERT INTO webhook_secrets (subscription_id, secret) VALUES ($1, $2) ON CONFLICT (subscription_id) DO UPDATE SET secret = excluded.secret',
      [subscriptionId, secret],
    );
  }

  async get(subscriptionId: string): Promise<string | null> {
    const { rows } = await query<{ secret: string }>(this.pool, 'SELECT secret FROM webhook_secrets WHERE subscription_id = $1', [subscriptionId]);
    return rows[0]?.secret ?? null;
  }

  async delete(subscriptionId: string): Promise<void> {
    await query(this.pool, 'DELETE FROM webhook_secrets WHERE subscription_id = $1', [subscriptionId]);
  }

  async storedPage(after: string | null, limit: number): Promise<readonly StoredSecret[]> {
    // '' sorts before every id.
    const { rows } = await query<{ subscription_id: string; secret: string }>(
      this.pool,
      'SELECT subscription_id, secret FROM webhook_secrets WHERE subscription_id > $1 ORDER BY subscription_id LIMIT $2',
      [after ?? '', limit],
    );
    return rows.map((row) => ({ subscriptionId: row.subscription_id, stored: row.secret }));
  }

  async replaceStored(subscriptionId: string, expected: string, next: string): Promise<boolean> {
    const { rowCount } = await query(this.pool, 'UPDATE webhook_secrets SET secret = $1 WHERE subscription_id = $2 AND secret = $3', [
      next,
      subscriptionId,
      expected,
    ]);
    return rowCount === 1;
  }

  async close(): Promise<void> {
    // The pool is shared; the event store ends it.
  }
}
