/** A process that holds (or held) a lease, named so that an operator can find it. */
export interface LeaseHolder {
  /** Unique per acquisition (a random id): a restarted process is another holder. */
  readonly owner: string;
  /** What holds it, for people: `projector` (a process with RUN_PROJECTIONS), `dispatcher` or `replay` (`chronicle replay`). */
  readonly role: string;
  readonly pid: number;
  /** The host's name. */
  readonly host: string;
  /**
   * Where `pid` names a process: the host's boot and pid namespace (Linux), so that
   * two containers of one host, each with its own pids, never judge each other's
   * pids. Null where the platform does not tell.
   */
  readonly scope: string | null;
}

/**
 * A lease as stored: its holder, when it was taken and when it was last renewed
 * (ISO 8601 UTC, both by the store's clock), and how long ago that renewal was, by
 * the store's clock when it was read.
 */
export interface LeaseRecord extends LeaseHolder {
  readonly acquiredAt: string;
  readonly renewedAt: string;
  readonly silentMs: number;
}

export interface LeaseClaim {
  /** A lease its holder has not renewed for this long, by the store's clock, is taken over. */
  readonly staleAfterMs: number;
  /**
   * The owner of a lease whose process the claimant knows to be gone (on its own
   * host, in its own pid namespace): taken over at once, if that owner still holds it.
   */
  readonly replacing?: string | null;
}

/** What a claim did: took the lease (as now stored), or left it to its holder (null: it changed meanwhile; read it again). */
export type ClaimOutcome =
  | { readonly taken: true; readonly lease: LeaseRecord }
  | { readonly taken: false; readonly holder: LeaseRecord | null };

/**
 * Named exclusive leases kept beside what they protect (the read models' lease
 * beside the read models), so that processes on one store (and, on MongoDB, on
 * many hosts) agree on one holder.
 *
 * Time is the store's own: whether a lease is stale is judged, and renewals and
 * acquisitions are stamped, by the store's clock in the store's own atomic write
 * (MongoDB: the server's `$$NOW`; SQLite: SQLite's time on the one machine whose
 * processes share the file; PostgreSQL: `now()`; memory: its injected clock),
 * never by comparing a claimant's clock with the holder's, which two machines do
 * not share.
 */
export interface LeaseStore {
  /** The lease as stored now, or null when nobody holds it. */
  read(name: string): Promise<LeaseRecord | null>;
  /**
   * In one atomic write, takes lease `name` for `holder` when nobody holds it, when
   * its holder has not renewed it for `claim.staleAfterMs` (the store's clock), or
   * when `claim.replacing` holds it; `acquiredAt` and `renewedAt` are then the
   * store's time. Otherwise leaves it, and answers who holds it.
   */
  claim(name: string, holder: LeaseHolder, claim: LeaseClaim): Promise<ClaimOutcome>;
  /** Stamps the store's time as the last renewal of `owner`'s lease; false when `owner` no longer holds it. */
  renew(name: string, owner: string): Promise<boolean>;
  /** Frees the lease when `owner` holds it; does nothing when another does. */
  release(name: string, owner: string): Promise<void>;
}
