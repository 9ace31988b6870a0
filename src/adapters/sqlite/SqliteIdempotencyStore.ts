import { randomUUID } from 'node:crypto';
import type { Statement, Transaction } from 'better-sqlite3';
import type {
  ClaimOutcome,
  IdempotencyClaim,
  IdempotencyCompletion,
  IdempotencyStore,
  StoredResponse,
} from '../../application/ports/IdempotencyStore.js';
import { ADMIN_SCOPE_PREFIX, ERASED_FINGERPRINT } from '../../application/ports/IdempotencyStore.js';
import { openSqliteDatabase, type SqliteDatabase } from './openSqliteDatabase.js';
import { whenLockFree } from './writeLock.js';

/**
 * The table, created by the store itself when missing (not a numbered migration):
 * it stands alone, nothing else reads it, and so it needs no place in the order of
 * the file's migrations. Times are Unix milliseconds.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS idempotency_keys (
    company_id  TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('in_flight', 'completed')),
    token       TEXT    NOT NULL,
    response    TEXT,
    expires_at  INTEGER NOT NULL,
    PRIMARY KEY (company_id, key)
  );
  CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
`;

interface Row {
  fingerprint: string;
  state: 'in_flight' | 'completed';
  token: string;
  response: string | null;
  expires_at: number;
}

/** The first string after every admin API scope (the prefix with its last character's successor): the scopes' range ends before it. */
const ADMIN_SCOPES_END = `${ADMIN_SCOPE_PREFIX.slice(0, -1)}${String.fromCharCode(ADMIN_SCOPE_PREFIX.charCodeAt(ADMIN_SCOPE_PREFIX.length - 1) + 1)}`;

/** Expired rows are deleted at most this often, at most this many at a time (claims treat them as absent anyway). */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_BATCH = 1000;

/**
 * Idempotency keys in the embedded SQLite file (`DATA_DIR/chronicle.sqlite`),
 * which every process on one `DATA_DIR` shares. A claim is one `BEGIN IMMEDIATE`
 * transaction (read the row, insert or take over an expired one), so two
 * processes claiming the same key at once cannot both win; commits are durable
 * (`synchronous=FULL`).
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly statements: {
    readonly get: Statement<[string, string], Row>;
    readonly put: Statement<[string, string, string, string, number]>;
    readonly complete: Statement<[string, number, string, string, string]>;
    readonly release: Statement<[string, string, string]>;
    readonly prune: Statement<[number, number]>;
    readonly mentioning: Statement<[string, string, string, string], { company_id: string; key: string; response: string }>;
    readonly rewrite: Statement<[string, string, string, string]>;
    readonly forgetCompany: Statement<[string]>;
  };
  private readonly eraseTransaction: Transaction<(companyId: string, id: string, rewrite: (response: StoredResponse) => StoredResponse) => number>;
  private readonly claimTransaction: Transaction<(claim: IdempotencyClaim, token: string) => ClaimOutcome>;
  private lastPruneMs = 0;

  /** On an open database (the event store's, or its own); `ownsDatabase`: close it with the store. */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly ownsDatabase = false,
  ) {
    db.exec(SCHEMA);
    this.statements = {
      get: db.prepare('SELECT fingerprint, state, token, response, expires_at FROM idempotency_keys WHERE company_id = ? AND key = ?'),
      put: db.prepare(
        `INSERT INTO idempotency_keys (company_id, key, fingerprint, state, token, response, expires_at)
         VALUES (?, ?, ?, 'in_flight', ?, NULL, ?)
         ON CONFLICT (company_id, key) DO UPDATE SET
           fingerprint = excluded.fingerprint, state = 'in_flight', token = excluded.token,
           response = NULL, expires_at = excluded.expires_at`,
      ),
      complete: db.prepare(
        `UPDATE idempotency_keys SET state = 'completed', response = ?, expires_at = ?
         WHERE company_id = ? AND key = ? AND token = ? AND state = 'in_flight'`,
      ),
      release: db.prepare(`DELETE FROM idempotency_keys WHERE company_id = ? AND key = ? AND token = ? AND state = 'in_flight'`),
      prune: db.prepare(
        'DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)',
      ),
      mentioning: db.prepare(
        // The company's rows, and the admin API's (every scope from the prefix up to, not including, its next string).
        `SELECT company_id, key, response FROM idempotency_keys
         WHERE (company_id = ? OR (company_id >= ? AND company_id < ?)) AND state = 'completed' AND instr(response, ?) > 0`,
      ),
      rewrite: db.prepare(`UPDATE idempotency_keys SET fingerprint = ?, response = ? WHERE company_id = ? AND key = ?`),
      forgetCompany: db.prepare('DELETE FROM idempotency_keys WHERE company_id = ?'),
    };
    this.eraseTransaction = db.transaction((companyId: string, id: string, rewrite: (response: StoredResponse) => StoredResponse): number => {
      const rows = this.statements.mentioning.all(companyId, ADMIN_SCOPE_PREFIX, ADMIN_SCOPES_END, id);
      for (const row of rows) {
        const response = rewrite(JSON.parse(row.response) as StoredResponse);
        this.statements.rewrite.run(ERASED_FINGERPRINT, JSON.stringify(response), row.company_id, row.key);
      }
      return rows.length;
    });
    this.claimTransaction = db.transaction((claim: IdempotencyClaim, token: string): ClaimOutcome => {
      const now = claim.now.getTime();
      const row = this.statements.get.get(claim.companyId, claim.key);
      if (row && row.expires_at > now) {
        if (row.state === 'in_flight') return { kind: 'in_flight', fingerprint: row.fingerprint };
        return { kind: 'completed', fingerprint: row.fingerprint, response: JSON.parse(row.response ?? 'null') as StoredResponse };
      }
      this.statements.put.run(claim.companyId, claim.key, claim.fingerprint, token, now + claim.claimTtlMs);
      return { kind: 'claimed', token };
    });
  }

  /** Opens (and migrates) the file with a connection of its own. */
  static open(file: string): SqliteIdempotencyStore {
    return new SqliteIdempotencyStore(openSqliteDatabase(file), true);
  }

  // Every write waits for a write lock another process holds with the event loop serving (writeLock.ts).

  async claim(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    const token = randomUUID();
    return whenLockFree(this.db, () => {
      this.pruneExpired(claim.now.getTime());
      // IMMEDIATE: the write lock is taken before the read, so no other process slips in between.
      return this.claimTransaction.immediate(claim, token);
    });
  }

  async complete(completion: IdempotencyCompletion): Promise<boolean> {
    const { companyId, key, token, response, now, retentionMs } = completion;
    const stored = JSON.stringify(response);
    const changed = await whenLockFree(this.db, () => this.statements.complete.run(stored, now.getTime() + retentionMs, companyId, key, token));
    return changed.changes === 1;
  }

  async release({ companyId, key, token }: { companyId: string; key: string; token: string }): Promise<void> {
    await whenLockFree(this.db, () => this.statements.release.run(companyId, key, token));
  }

  async eraseMentions(companyId: string, id: string, rewrite: (response: StoredResponse) => StoredResponse): Promise<number> {
    // The connection writes with secure_delete on (openSqliteDatabase): the old text leaves the file's pages too.
    return whenLockFree(this.db, () => this.eraseTransaction.immediate(companyId, id, rewrite));
  }

  async forgetCompany(companyId: string): Promise<number> {
    // secure_delete: the deleted rows' bytes are overwritten in the file's pages.
    return whenLockFree(this.db, () => this.statements.forgetCompany.run(companyId).changes);
  }

  async close(): Promise<void> {
    if (this.ownsDatabase && this.db.open) this.db.close();
  }

  private pruneExpired(now: number): void {
    if (now - this.lastPruneMs < PRUNE_EVERY_MS) return;
    this.lastPruneMs = now;
    this.statements.prune.run(now, PRUNE_BATCH);
  }
}
