import type pg from 'pg';
import type { WebhookSecretStore } from '../../application/ports/WebhookSecretStore.js';
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

  async close(): Promise<void> {
    // The pool is shared; the event store ends it.
  }
}
