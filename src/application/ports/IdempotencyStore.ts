/**
 * Idempotency keys of creating requests (`Idempotency-Key`), kept durably and
 * shared by every process and instance: the SQLite file of `DATA_DIR` embedded,
 * MongoDB in production.
 *
 * A key is scoped to a company (the admin API's, to an admin token: `ADMIN_SCOPE_PREFIX`). Its record is first a claim (the request is in
 * flight), then the response the request answered, kept until `expiresAt`. Each
 * claim carries a token of its own, so that only the request holding the claim can
 * complete or release it: a request that outlived its claim (taken over after
 * `claimTtlMs`, the first one presumed crashed) cannot overwrite its successor.
 */

/** A response as it is replayed: status, body, and the headers that belong to it. */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
  /** Response headers to replay (`X-Log-Position`, `ETag`), by name. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface IdempotencyClaim {
  readonly companyId: string;
  /** The client's key (1–255 printable characters). */
  readonly key: string;
  /** What the request was: method, route and a hash of its canonical body. */
  readonly fingerprint: string;
  readonly now: Date;
  /** How long a claim holds without being completed; after it, a new request may take the key over. */
  readonly claimTtlMs: number;
}

export type ClaimOutcome =
  /** The key was free (or its record expired): this request runs, then completes or releases it. */
  | { readonly kind: 'claimed'; readonly token: string }
  /** Another request holds the key and has not answered yet. */
  | { readonly kind: 'in_flight'; readonly fingerprint: string }
  /** A request with this key answered; its response, until the record expires. */
  | { readonly kind: 'completed'; readonly fingerprint: string; readonly response: StoredResponse };

export interface IdempotencyCompletion {
  readonly companyId: string;
  readonly key: string;
  readonly token: string;
  readonly response: StoredResponse;
  readonly now: Date;
  /** How long the response is kept for replays. */
  readonly retentionMs: number;
}

export interface IdempotencyStore {
  /**
   * Atomically: claims the key when it has no record, or only an expired one (an
   * in-flight claim past its `claimTtlMs`, a response past its retention);
   * otherwise tells what holds it.
   */
  claim(claim: IdempotencyClaim): Promise<ClaimOutcome>;
  /** Stores the response under the claim; false (and nothing stored) when the claim is no longer this token's. */
  complete(completion: IdempotencyCompletion): Promise<boolean>;
  /** Drops this token's claim (the request failed and may be sent again with the key); another token's record stays. */
  release(release: { readonly companyId: string; readonly key: string; readonly token: string }): Promise<void>;
  /**
   * Erasure of a person: each kept response whose text holds `id` (the person's
   * id), of the company or of the admin API (every scope that starts with
   * `ADMIN_SCOPE_PREFIX`: the platform's writes name a company's people too, its
   * users first), is replaced by `rewrite`'s, and its fingerprint (a hash of the
   * request, and so of the person's values) by `ERASED_FINGERPRINT`. A replay of
   * such a key answers what `rewrite` gave, whatever its body. Other companies'
   * responses are not looked at; claims in flight are left alone (they hold no
   * response). Returns how many records changed.
   */
  eraseMentions(companyId: string, id: string, rewrite: (response: StoredResponse) => StoredResponse): Promise<number>;
  /**
   * Erasure of a company: every record kept under the company's scope (claims and
   * responses) is deleted. The admin API's scopes are left alone: the responses
   * there that name the company's people are rewritten by each person's
   * `eraseMentions`. Returns how many records were deleted.
   */
  forgetCompany(companyId: string): Promise<number>;
  /** Releases what the store itself opened (a shared connection stays open). */
  close(): Promise<void>;
}

/**
 * The start of every admin API scope (`admin-token:<token id>`): no company's id
 * starts so (ids are UUIDs). An erasure reaches the responses kept under each.
 */
export const ADMIN_SCOPE_PREFIX = 'admin-token:';

/**
 * The fingerprint of a record whose response was rewritten by an erasure: no
 * request hashes to it (fingerprints are hex), so a replay is answered without
 * comparing bodies.
 */
export const ERASED_FINGERPRINT = 'erased';
