import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type {
  ClaimOutcome,
  IdempotencyClaim,
  IdempotencyCompletion,
  IdempotencyStore,
  StoredResponse,
} from '../../application/ports/IdempotencyStore.js';
import { ADMIN_SCOPE_PREFIX, ERASED_FINGERPRINT } from '../../application/ports/IdempotencyStore.js';
import { inTransaction, query } from './postgresPool.js';

interface KeyRow {
  fingerprint: string;
  state: 'in_flight' | 'completed';
  response: string | null;
  expires_at: Date;
}

/** Expired rows are deleted at most this often, at most this many at a time (claims treat them as absent anyway). */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 1000;
/** A claim whose record vanished between its insert and its read (released, pruned) tries again, this many times. */
const MAX_CLAIM_ROUNDS = 5;

/**
 * Idempotency keys in the `idempotency_keys` table, shared by every process on
 * the database. A claim is one `INSERT … ON CONFLICT DO UPDATE … WHERE expired`:
 * the first request inserts, an expired record is taken over in the same
 * statement, and of many requests at once exactly one gets the key (the others
 * wait on the row, then find it held). Expiry is judged on the request's time (the
 * port's `now`), as by every adapter.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  private lastPruneMs = 0;

  constructor(private readonly pool: pg.Pool) {}

  async claim(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    const { companyId, key, fingerprint, now, claimTtlMs } = claim;
    void this.pruneExpired(now);
    const token = randomUUID();
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      const taken = await query(
        this.pool,
        `INSERT INTO idempotency_keys (company_id, key, fingerprint, state, token, response, expires_at)
         VALUES ($1, $2, $3, 'in_flight', $4, NULL, $5)
         ON CONFLICT (company_id, key) DO UPDATE SET
           fingerprint = excluded.fingerprint, state = 'in_flight', token = excluded.token,
           response = NULL, expires_at = excluded.expires_at
         WHERE idempotency_keys.expires_at <= $6
         RETURNING token`,
        [companyId, key, fingerprint, token, new Date(now.getTime() + claimTtlMs), now],
      );
      if (taken.rowCount === 1) return { kind: 'claimed', token };
      const { rows } = await query<KeyRow>(
        this.pool,
        'SELECT fingerprint, state, response, expires_at FROM idempotency_keys WHERE company_id = $1 AND key = $2',
        [companyId, key],
      );
      const row = rows[0];
      // Gone meanwhile (released), or expired since the insert looked: try again.
      if (!row || row.expires_at.getTime() <= now.getTime()) continue;
      if (row.state === 'in_flight') return { kind: 'in_flight', fingerprint: row.fingerprint };
      return { kind: 'completed', fingerprint: row.fingerprint, response: JSON.parse(row.response ?? 'null') as StoredResponse };
    }
    throw new Error(`Idempotency key could not be claimed after ${MAX_CLAIM_ROUNDS} rounds`);
  }

  async complete(completion: IdempotencyCompletion): Promise<boolean> {
    const { companyId, key, token, response, now, retentionMs } = completion;
    const updated = await query(
      this.pool,
      `UPDATE idempotency_keys SET state = 'completed', response = $1, expires_at = $2
       WHERE company_id = $3 AND key = $4 AND token = $5 AND state = 'in_flight'`,
      [JSON.stringify(response), new Date(now.getTime() + retentionMs), companyId, key, token],
    );
    return updated.rowCount === 1;
  }

  async release({ companyId, key, token }: { companyId: string; key: string; token: string }): Promise<void> {
    await query(this.pool, `DELETE FROM idempotency_keys WHERE company_id = $1 AND key = $2 AND token = $3 AND state = 'in_flight'`, [
      companyId,
      key,
      token,
    ]);
  }

  async eraseMentions(companyId: string, id: string, rewrite: (response: StoredResponse) => StoredResponse): Promise<number> {
    // The rows are locked while they are rewritten: a key's record is never half erased. Values are bound, never inlined.
    return inTransaction(this.pool, async (client) => {
      // The company's rows, and the admin API's (every scope that starts with the prefix).
      const { rows } = await client.query<{ company_id: string; key: string; response: string }>(
        `SELECT company_id, key, response FROM idempotency_keys
         WHERE (company_id = $1 OR starts_with(company_id, $3)) AND state = 'completed' AND strpos(response, $2) > 0 FOR UPDATE`,
        [companyId, id, ADMIN_SCOPE_PREFIX],
      );
      for (const row of rows) {
        const response = rewrite(JSON.parse(row.response) as StoredResponse);
        await client.query('UPDATE idempotency_keys SET fingerprint = $1, response = $2 WHERE company_id = $3 AND key = $4', [
          ERASED_FINGERPRINT,
          JSON.stringify(response),
          row.company_id,
          row.key,
        ]);
      }
      return rows.length;
    });
  }

  async forgetCompany(companyId: string): Promise<number> {
    const { rowCount } = await this.pool.query('DELETE FROM idempotency_keys WHERE company_id = $1', [companyId]);
    return rowCount ?? 0;
  }

  async close(): Promise<void> {
    // The pool is shared; the event store ends it.
  }

  /** In the background (a claim does not wait for it): a failure waits for the next round. Answers how many went. */
  private async pruneExpired(now: Date): Promise<number> {
    if (now.getTime() - this.lastPruneMs < PRUNE_EVERY_MS) return 0;
    this.lastPruneMs = now.getTime();
    const pruned = await query(
      this.pool,
      // Expiry checked again on the row deleted: a claim may have taken it over since the subquery read it.
      `DELETE FROM idempotency_keys WHERE expires_at <= $1 AND (company_id, key) IN (
         SELECT company_id, key FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)`,
      [now, PRUNE_BATCH],
    ).catch(() => null);
    return pruned?.rowCount ?? 0;
  }
}
