import type { ProjectionLag } from '../subscriptions/ProjectionRunner.js';
import type { ReadModelProgress } from '../subscriptions/ReadModelProgress.js';
import type { EventStore } from '../ports/EventStore.js';
import type { Clock } from '../../shared/Clock.js';
import { compareNullablePositions, type Position } from '../../shared/Position.js';

/** A revoked credential is refused by every API process at most this long after its revocation was recorded. */
export const REVOCATION_BOUND_MS = 1_000;

/**
 * How long a credential found active is answered again from memory, without a
 * lookup (at most half the revocation bound, which it is part of). A lookup costs
 * a hash and a read of a read model, a noticeable share of a GET by id's CPU
 * (docs/benchmarks/design-measurements.md, "API key lookups").
 */
export const KEY_REUSE_MS = 200;

/** Credentials found active kept at most (the oldest found is dropped first). */
const KEPT = 10_000;

/** What a read model says of a presented credential (an API key, an admin token). */
export type CredentialVerification<Auth> =
  /** Not a credential of this kind at all (prefix, length, alphabet or checksum): no lookup was made. */
  | { readonly kind: 'malformed' }
  /** Well formed, but unknown (to these read models), revoked or expired. */
  | { readonly kind: 'invalid'; readonly reason: 'unknown' | 'revoked' | 'expired' }
  | { readonly kind: 'valid'; readonly auth: Auth }
  /** Active, but its owner (an API key's company) is suspended: refused until it is resumed. */
  | { readonly kind: 'suspended'; readonly auth: Auth };

export type FreshCredentialVerification<Auth> =
  | CredentialVerification<Auth>
  /** Not in the read models, which stayed behind the log for the whole wait: whether it exists cannot be told yet. */
  | { readonly kind: 'unverifiable' };

/** One kind of credential: how it is recognised and hashed, looked up in its read model, and checked in its stream. */
export interface CredentialLookup<Auth> {
  isWellFormed(presented: string): boolean;
  /** SHA-256 of the credential (hex): what the read model is keyed by. */
  hash(presented: string): string;
  /** The read model's answer for a hash, with the credential's expiry (epoch ms; null for none, or when none active was found). */
  lookUp(hash: string, now: Date): Promise<{ readonly verification: CredentialVerification<Auth>; readonly expiresAt: number | null }>;
  /** Whether the credential's own stream in the log says it is still active (issued, not revoked). */
  activeInLog(auth: Auth): Promise<boolean>;
  /** Whether the log says its owner is suspended (an API key's company's stream); absent: an owner is never suspended. */
  suspendedInLog?(auth: Auth): Promise<boolean>;
}

export interface FreshCredentialVerifierDeps {
  /** The log's head: how far the read models must be to know every credential. */
  readonly eventStore: Pick<EventStore, 'headPosition'>;
  /** The read models this process reads: the projections run here, or the projector's checkpoint followed. */
  readonly progress: ReadModelProgress;
  /** Where the read models stand now (a follower reads the projector's checkpoint again). */
  readonly appliedPosition: () => Promise<Position | null>;
  /** How far the read models are behind the log (age of the oldest event not applied). */
  readonly lag: () => Promise<ProjectionLag>;
  readonly clock: Clock;
  /** The longest an unknown credential waits for the read models to reach the log's head (READ_YOUR_WRITES_TIMEOUT_MS). */
  readonly unknownKeyWaitMs: number;
  /** Default `REVOCATION_BOUND_MS`. */
  readonly revocationBoundMs?: number;
  /** Default `KEY_REUSE_MS`; 0 looks every credential up each time. */
  readonly keyReuseMs?: number;
}

/**
 * Credentials are looked up by hash in a read model, which follows the log: one
 * just issued (by the CLI, in another process) is not in it until the projector
 * has applied its event, and one just revoked is still in it as active. This
 * verifier answers as the log does, within bounds:
 *
 * - **An unknown credential** is looked up again once the read models have
 *   reached the head the log had when it was missed (the credential, issued
 *   before the request came, is at or before that head); waiting at most
 *   `unknownKeyWaitMs`. When the read models are already there, the answer is
 *   immediate (an unknown one costs a guesser no wait when nothing is pending).
 *   When they are still behind at the end of the wait: `unverifiable` (the caller
 *   answers 503), never a wrong 401.
 * - **A known, active credential** is trusted from the read model while it is
 *   known to hold every event recorded more than `revocationBoundMs` ago
 *   (measured at most every half-bound, once for all requests; a lookup made
 *   before a measurement it waited for is made again). When the read models are
 *   further behind (the projector is stopped or slow), the credential's own
 *   stream in the log decides whether it was revoked.
 *
 * Revoked and expired credentials in the read model are refused at once: a
 * revocation is final, an expiry is a fixed date.
 *
 * A credential whose owner is suspended (`suspended`: an API key of a suspended
 * company) is answered as an active one is, within the same bound both ways: a
 * suspension recorded is refused within `revocationBoundMs`, and a resumption
 * accepted as soon as the read models apply it; where they are further behind,
 * the owner's stream in the log decides (`suspendedInLog`). It is never reused
 * from memory.
 *
 * One found active is answered again without a lookup for `keyReuseMs` (kept by
 * its hash, never as presented; its expiry still checked each time), and the
 * requests that come while its lookup is under way wait for that lookup's answer
 * rather than make their own. That time is
 * taken out of the bound: the read models must then hold every event recorded
 * more than `revocationBoundMs - keyReuseMs` before the lookup, so a revocation
 * is still refused within `revocationBoundMs` of being recorded.
 */
export const freshCredentialVerifier = <Auth>(
  credential: CredentialLookup<Auth>,
  deps: FreshCredentialVerifierDeps,
): ((presented: string, now: Date) => Promise<FreshCredentialVerification<Auth>>) => {
  type Valid = CredentialVerification<Auth> & { readonly kind: 'valid' };
  const boundMs = deps.revocationBoundMs ?? REVOCATION_BOUND_MS;
  const reuseMs = Math.min(deps.keyReuseMs ?? KEY_REUSE_MS, boundMs / 2);
  const freshness = new ReadModelFreshness(deps.lag, deps.clock, boundMs);
  /** Credentials found active: the answer, when it was looked up and until when it is valid (epoch ms). */
  const found = new Map<string, { readonly valid: Valid; readonly at: number; readonly expiresAt: number | null }>();
  /** Lookups under way, by hash: the requests of one credential that come meanwhile wait for the same answer. */
  const underWay = new Map<string, { readonly at: number; readonly answer: Promise<FreshCredentialVerification<Auth>> }>();

  /** Once the read models have reached the head of the log as it is now: false when they did not within the wait. */
  const caughtUpWithHead = async (): Promise<boolean> => {
    const head = await deps.eventStore.headPosition();
    if (compareNullablePositions(await deps.appliedPosition(), head) >= 0) return true;
    return head !== null && deps.progress.waitFor(head, deps.unknownKeyWaitMs);
  };

  type Active = CredentialVerification<Auth> & { readonly kind: 'valid' | 'suspended' };
  /** An active credential in the read model (its owner suspended or not), checked against what they may not have applied yet. */
  const stillActive = async (active: Active, hash: string, now: Date): Promise<CredentialVerification<Auth>> => {
    switch (await freshness.check(boundMs - reuseMs)) {
      case 'fresh':
        return active;
      case 'measured':
        // Measured after the lookup: what it counts as applied may be newer than what the lookup saw.
        return (await credential.lookUp(hash, now)).verification;
      case 'behind': {
        if (!(await credential.activeInLog(active.auth))) return { kind: 'invalid', reason: 'revoked' };
        const suspended = (await credential.suspendedInLog?.(active.auth)) ?? false;
        return { kind: suspended ? 'suspended' : 'valid', auth: active.auth };
      }
    }
  };

  /** The answer from the read model (and the log where they are behind), before any reuse. */
  const verify = async (hash: string, now: Date): Promise<{ verification: FreshCredentialVerification<Auth>; expiresAt: number | null }> => {
    const { verification, expiresAt } = await credential.lookUp(hash, now);
    switch (verification.kind) {
      case 'malformed':
        return { verification, expiresAt };
      case 'invalid':
        // Revoked or expired is final; only an unknown credential may be one the read models have not applied yet.
        if (verification.reason !== 'unknown') return { verification, expiresAt };
        if (!(await caughtUpWithHead())) return { verification: { kind: 'unverifiable' }, expiresAt: null };
        return credential.lookUp(hash, now);
      case 'valid':
      case 'suspended':
        return { verification: await stillActive(verification, hash, now), expiresAt };
      default: {
        const unexpected: never = verification;
        return unexpected;
      }
    }
  };

  return async (presented, now) => {
    if (!credential.isWellFormed(presented)) return { kind: 'malformed' };
    const hash = credential.hash(presented);
    const at = now.getTime();
    const kept = found.get(hash);
    if (kept && at >= kept.at && at - kept.at < reuseMs) {
      if (kept.expiresAt === null || at < kept.expiresAt) return kept.valid;
      found.delete(hash);
      return { kind: 'invalid', reason: 'expired' };
    }
    // A lookup of the same credential begun less than the reuse time ago answers this request too.
    const joined = underWay.get(hash);
    if (joined && at >= joined.at && at - joined.at < reuseMs) return joined.answer;
    const answer = (async () => {
      const { verification, expiresAt } = await verify(hash, now);
      if (verification.kind === 'valid' && reuseMs > 0) {
        found.delete(hash);
        if (found.size >= KEPT) found.delete(found.keys().next().value!);
        found.set(hash, { valid: verification, at, expiresAt });
      } else if (kept) {
        found.delete(hash);
      }
      return verification;
    })();
    underWay.set(hash, { at, answer });
    try {
      return await answer;
    } finally {
      if (underWay.get(hash)?.answer === answer) underWay.delete(hash);
    }
  };
};

/**
 * How fresh the read models this process reads are: a time before which every
 * event recorded is known to be applied, measured from their lag (at most one
 * measurement at a time, shared by every request that needs it).
 */
class ReadModelFreshness {
  /** Every event recorded before this time (ms) is applied; null until measured. */
  private appliedAsOf: number | null = null;
  /** When the last measurement ended (ms), so that read models found behind are not measured again for every request. */
  private measuredAt: number | null = null;
  private measuring: Promise<void> | null = null;

  constructor(
    private readonly lag: () => Promise<ProjectionLag>,
    private readonly clock: Clock,
    /** Read models found behind are measured again at most every tenth of this. */
    private readonly boundMs: number,
  ) {}

  /**
   * Whether the read models hold every event recorded more than `withinMs` ago:
   * `fresh` by a measurement made before this call, `measured` by one this call
   * waited for, `behind` when they do not. Measured again when the last
   * measurement is older than half of `withinMs` (in the background while it still
   * holds, awaited once it no longer does); read models found behind are measured
   * again at most every tenth of the revocation bound.
   */
  async check(withinMs: number): Promise<'fresh' | 'measured' | 'behind'> {
    const now = () => this.clock.now().getTime();
    const holds = () => this.appliedAsOf !== null && now() - this.appliedAsOf <= withinMs;
    if (this.appliedAsOf !== null && now() - this.appliedAsOf <= withinMs / 2) return 'fresh';
    if (holds()) {
      void this.measure();
      return 'fresh';
    }
    if (this.measuredAt !== null && now() - this.measuredAt < this.boundMs / 10) return 'behind';
    await this.measure();
    return holds() ? 'measured' : 'behind';
  }

  private measure(): Promise<void> {
    this.measuring ??= (async () => {
      try {
        const startedAt = this.clock.now().getTime();
        const lag = await this.lag();
        // Caught up: everything recorded before the measurement began is applied; else everything before the oldest event not applied.
        const asOf = lag.caughtUp ? startedAt : this.clock.now().getTime() - lag.lagMs;
        if (this.appliedAsOf === null || asOf > this.appliedAsOf) this.appliedAsOf = asOf;
      } catch {
        // A store that fails leaves the last measurement as it was: credentials are checked in the log meanwhile.
      } finally {
        this.measuredAt = this.clock.now().getTime();
        this.measuring = null;
      }
    })();
    return this.measuring;
  }
}
