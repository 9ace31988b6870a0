/**
 * Sessions of the customer console, shared by every process and instance (the
 * embedded SQLite file, MongoDB, PostgreSQL), so a session opened through one
 * API process is known to all, and a logout ends it everywhere.
 *
 * A session has two ends: its absolute expiry (`expiresAt`, fixed when it opens)
 * and its idle expiry (`idleExpiresAt`, pushed forward by every request). It is
 * known by its id and the SHA-256 of its secret (the secret is in the browser's
 * cookie only).
 */
export interface ConsoleSessionRecord {
  readonly sessionId: string;
  readonly companyId: string;
  /** The admin token whose link opened it (its id; null for a link of the CLI): revoking that token ends it. */
  readonly adminTokenId: string | null;
  readonly secretHash: string;
  readonly createdAt: Date;
  /** The absolute end: no request resumes it after this, however active. */
  readonly expiresAt: Date;
  /** The idle end: no request resumes it after this; each request that does moves it to `now + idleMs`. */
  readonly idleExpiresAt: Date;
}

export interface ConsoleSessionStore {
  /** Records a new session (its id is new: a second `open` of one id is a programming error). */
  open(session: ConsoleSessionRecord): Promise<void>;
  /**
   * Atomically: when the session exists with this secret hash and neither of its
   * ends is reached at `now`, moves its idle end to `now + idleMs` (never past
   * `expiresAt`) and answers it; otherwise null (unknown, wrong secret, ended,
   * expired, idle too long), and nothing changes.
   */
  resume(sessionId: string, secretHash: string, now: Date, idleMs: number): Promise<ConsoleSessionRecord | null>;
  /** Ends the session now (logout): true when there was one with this secret hash. */
  end(sessionId: string, secretHash: string): Promise<boolean>;
  /**
   * Ends now every session of a company (`{companyId}`) or every session opened by
   * an admin token's links (`{adminTokenId}`), in every process; answers how many
   * were open or not yet pruned.
   */
  endAll(which: { readonly companyId: string } | { readonly adminTokenId: string }): Promise<number>;
  /** Deletes at most `limit` sessions whose idle or absolute end is at or before `now`; answers how many. */
  prune(now: Date, limit: number): Promise<number>;
  /** Releases what the store itself opened (a shared connection stays open). */
  close(): Promise<void>;
}
