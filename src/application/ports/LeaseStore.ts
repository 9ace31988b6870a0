/** A process that holds (or held) a lease, named so that an operator can find it. */
export interface LeaseHolder {
  /** Unique per acquisition (a random id): a restarted process is another holder. */
  readonly owner: string;
  /** What holds it, for people: `projector` (a process with RUN_PROJECTIONS) or `replay` (`chronicle replay`). */
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

/** A lease as stored: its holder, when it was taken and when it was last renewed (ISO 8601 UTC). */
export interface LeaseRecord extends LeaseHolder {
  readonly acquiredAt: string;
  readonly renewedAt: string;
}

/**
 * Named exclusive leases kept beside what they protect (the read models' lease
 * beside the read models), each changed by one atomic conditional write, so that
 * processes on one store (and, on MongoDB, on many hosts) agree on one holder.
 * Whether a lease may be taken (free, stale, its holder dead) is decided by the
 * caller (`Lease`), which then claims it with the record it read.
 */
export interface LeaseStore {
  /** The lease as stored now, or null when nobody holds it. */
  read(name: string): Promise<LeaseRecord | null>;
  /**
   * Writes `record` as lease `name` when it is still as the caller read it: free
   * (`replacing` null), or held by `replacing.owner`, last renewed at
   * `replacing.renewedAt`. True when written; false when another process changed
   * it meanwhile (it took the lease, or its holder renewed it).
   */
  claim(name: string, record: LeaseRecord, replacing: LeaseRecord | null): Promise<boolean>;
  /** Moves the renewal time of `owner`'s lease to `at`; false when `owner` no longer holds it. */
  renew(name: string, owner: string, at: string): Promise<boolean>;
  /** Frees the lease when `owner` holds it; does nothing when another does. */
  release(name: string, owner: string): Promise<void>;
}
