import type { Clock } from '../../shared/Clock.js';
import { Alarm } from './Alarm.js';
import { newId } from '../../shared/ids.js';
import type { LoopHealth } from './LoopHealth.js';
import type { LeaseHolder, LeaseRecord, LeaseStore } from '../ports/LeaseStore.js';
import type { Logger } from '../ports/Logger.js';

/** A holder renews its lease this often. */
export const LEASE_RENEW_EVERY_MS = 2_000;
/** A lease not renewed for this long, by its store's clock, may be taken over from anywhere (its holder is presumed dead). */
export const LEASE_STALE_AFTER_MS = 15_000;
/**
 * How long a claimant waits while a holder it cannot judge (another host, another
 * container) keeps renewing the lease, before it gives up with `LeaseHeldError`: two
 * stale bounds. A holder that stops renewing is taken over once the lease is stale,
 * whatever this bound.
 */
export const LEASE_WAIT_LIMIT_MS = 2 * LEASE_STALE_AFTER_MS;

/** The name of the read models' lease: the one projector (or replay) that writes them holds it. */
export const READ_MODELS_LEASE = 'read-models';
/** The name of the webhooks' lease: the one process that fans the log out into the outbox and delivers holds it. */
export const WEBHOOKS_LEASE = 'webhooks';

/** What each lease protects, as a refused process says it. */
const PROTECTED: Record<string, { readonly taken: string; readonly rule: string }> = {
  [READ_MODELS_LEASE]: {
    taken: 'the read models are written by another process',
    rule: 'One process at a time writes them (the projector, RUN_PROJECTIONS=true, or chronicle replay)',
  },
  [WEBHOOKS_LEASE]: {
    taken: 'the webhooks are fanned out and delivered by another process',
    rule: 'One process at a time delivers them (the dispatcher, RUN_WEBHOOKS=true)',
  },
};

/** This process as a lease names it; each acquisition adds an owner id of its own. */
export type LeaseClaimant = Omit<LeaseHolder, 'owner'>;

/**
 * What a claimant can tell of a holder's process: `gone` (it ran on this host, in
 * this pid namespace, and its pid no longer runs), `running` (it runs here), or
 * `unknown` (another host, another container: never judged from here).
 */
export type HolderState = 'gone' | 'running' | 'unknown';

const describeHolder = (holder: LeaseRecord): string =>
  `${holder.role === 'replay' ? 'a replay (chronicle replay)' : `a ${holder.role}`}, pid ${holder.pid} on host ${holder.host} ` +
  `(holding it since ${holder.acquiredAt}, renewed ${(holder.silentMs / 1000).toFixed(1)} s ago)`;

/** Another live process holds the lease: this one must not do the work it protects. */
export class LeaseHeldError extends Error {
  override readonly name = 'LeaseHeldError';
  constructor(
    readonly lease: string,
    readonly holder: LeaseRecord,
    staleAfterMs: number,
    /** How long this process waited for it (0: the holder runs on this host, so it was refused at once). */
    waitedMs = 0,
  ) {
    const { taken, rule } = PROTECTED[lease] ?? { taken: `the "${lease}" lease is held by another process`, rule: 'One process at a time holds it' };
    super(
      `${taken}: ${describeHolder(holder)}${waitedMs > 0 ? `, which kept renewing it for the ${(waitedMs / 1000).toFixed(0)} s this process waited` : ''}. ` +
        `${rule}: stop that one first. A lease whose process is gone is taken over at once on its own host, ` +
        `and by anyone ${staleAfterMs / 1000} s after its last renewal.`,
    );
  }
}

/** This process's lease was taken over by another process (it could not renew it in time): it must stop the work it protects. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(
    readonly lease: string,
    readonly holder: LeaseRecord | null,
  ) {
    super(
      `lost the "${lease}" lease${holder ? ` to ${describeHolder(holder)}` : ''}: ` +
        'another process took it over after this one had not renewed it in time; stopping',
    );
  }
}

export interface LeaseDeps {
  readonly leases: LeaseStore;
  readonly name: string;
  readonly claimant: LeaseClaimant;
  /** What this process can tell of the holder's process (`localProcess.judgeHolder`). */
  readonly judgeHolder: (holder: LeaseHolder) => HolderState;
  /** This process's clock: only for how long it has waited (staleness is the store's to judge). */
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where failing renewals show (`/ready`'s `backgroundLoops`). */
  readonly health?: LoopHealth;
  /** Told once, when a renewal finds that another process holds the lease now. */
  readonly onLost?: (error: LeaseLostError) => void;
  /** Told what `acquire` waits for while a holder it cannot judge holds the lease (for `/ready`). */
  readonly onWaiting?: (what: string) => void;
  /** Ends a wait: `acquire` rejects with the signal's reason (a stop during the start). */
  readonly signal?: AbortSignal;
  readonly renewEveryMs?: number;
  readonly staleAfterMs?: number;
  /** See `LEASE_WAIT_LIMIT_MS`. */
  readonly waitLimitMs?: number;
}

/** How many claims in a row may find the lease changed under them before `acquire` gives up. */
const CLAIM_ATTEMPTS = 3;

/** The loop name under which failing renewals show in `/ready`. */
export const LEASE_LOOP = 'lease';

/**
 * An exclusive lease, held while this process does what it protects (the
 * projector writing the read models, the dispatcher delivering webhooks).
 *
 * Taking it: the store takes it in one atomic write when it is free, stale (not
 * renewed for `staleAfterMs` by the store's clock) or held by a process this one
 * knows to be gone (its pid no longer runs on this host, in this pid namespace).
 * Otherwise:
 * - a holder running on this host is certainly alive: `LeaseHeldError` at once;
 * - a holder elsewhere (another host, or a container whose pid namespace is not
 *   this one's, as after every restart of a container) cannot be judged: `acquire`
 *   waits, logging it and telling `onWaiting`, polling at each renewal interval.
 *   A holder that stopped (crashed, killed) is taken over once its lease is stale;
 *   one that keeps renewing for `waitLimitMs` is another live process, and
 *   `acquire` gives up with `LeaseHeldError`, so that a second projector or
 *   dispatcher configured by mistake is reported rather than kept waiting forever.
 *
 * Held: renewed every `renewEveryMs`; a renewal that finds another owner tells
 * `onLost` and stops renewing. A renewal that fails (the store is down) is retried
 * at the next one: the lease stays this process's until another takes it over,
 * which it can only once the lease is stale.
 */
export class Lease {
  private timer: NodeJS.Timeout | null = null;
  private ended = false;

  private constructor(
    private readonly deps: LeaseDeps,
    readonly holder: LeaseRecord,
  ) {}

  static async acquire(deps: LeaseDeps): Promise<Lease> {
    const { leases, name, clock, logger, signal } = deps;
    const staleAfterMs = deps.staleAfterMs ?? LEASE_STALE_AFTER_MS;
    const waitLimitMs = deps.waitLimitMs ?? LEASE_WAIT_LIMIT_MS;
    const pollMs = deps.renewEveryMs ?? LEASE_RENEW_EVERY_MS;
    const owner = newId();
    const alarm = new Alarm();
    const wake = () => alarm.wake();
    signal?.addEventListener('abort', wake, { once: true });
    const waitStarted = clock.now().getTime();
    /** The holder's last renewal as first seen, and when (this clock) a renewal was last seen to happen. */
    let seen: { owner: string; renewedAt: string; at: number } | null = null;
    let changedUnder = 0;
    let waitingFor: string | null = null;
    try {
      for (;;) {
        if (signal?.aborted) throw signal.reason ?? new Error('aborted');
        const current = await leases.read(name);
        const replacing = current !== null && deps.judgeHolder(current) === 'gone' ? current.owner : null;
        const outcome = await leases.claim(name, { owner, ...deps.claimant }, { staleAfterMs, replacing });
        if (outcome.taken) {
          if (current !== null) {
            logger.warn(
              { lease: name, previous: current, reason: replacing !== null ? 'its process is gone' : `not renewed for ${staleAfterMs} ms or more` },
              'taking over a lease its holder left behind',
            );
          }
          const lease = new Lease(deps, outcome.lease);
          lease.schedule();
          logger.info({ lease: name, owner, pid: outcome.lease.pid, host: outcome.lease.host }, 'lease taken');
          return lease;
        }
        const holder = outcome.holder;
        if (holder === null) {
          // Released between the claim and the read: claim again at once (a few times).
          if (++changedUnder >= CLAIM_ATTEMPTS) throw new Error(`the "${name}" lease kept changing while it was being taken; try again`);
          continue;
        }
        changedUnder = 0;
        const now = clock.now().getTime();
        if (deps.judgeHolder(holder) === 'running') throw new LeaseHeldError(name, holder, staleAfterMs);
        if (seen === null || seen.owner !== holder.owner || seen.renewedAt !== holder.renewedAt) {
          // A renewal (or a new holder) seen now: the holder is alive as of this moment.
          const renewing: boolean = seen !== null;
          seen = { owner: holder.owner, renewedAt: holder.renewedAt, at: renewing ? now : now - holder.silentMs };
        }
        const waitedMs = now - waitStarted;
        const renewedRecently = now - seen.at < staleAfterMs;
        if (waitedMs >= waitLimitMs && renewedRecently) throw new LeaseHeldError(name, holder, staleAfterMs, waitedMs);
        const what =
          `the "${name}" lease, held by ${describeHolder(holder)} on another host or in another container: ` +
          `taken over once not renewed for ${staleAfterMs / 1000} s`;
        if (waitingFor === null || seen.owner !== holder.owner) {
          logger.warn({ lease: name, holder, staleAfterMs, waitLimitMs }, 'waiting for a lease held by a process this one cannot judge');
        }
        waitingFor = what;
        deps.onWaiting?.(what);
        await alarm.sleep(pollMs);
      }
    } finally {
      signal?.removeEventListener('abort', wake);
    }
  }

  get owner(): string {
    return this.holder.owner;
  }

  private schedule(): void {
    if (this.ended) return;
    this.timer = setTimeout(() => void this.renew(), this.deps.renewEveryMs ?? LEASE_RENEW_EVERY_MS);
    // Never what keeps a process alive (a CLI replay ends when its work does).
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    this.timer = null;
    const { leases, name, logger, health } = this.deps;
    try {
      const held = await leases.renew(name, this.owner);
      health?.succeeded(LEASE_LOOP);
      if (!held) {
        await this.lost();
        return;
      }
    } catch (error) {
      const failure = health?.failed(LEASE_LOOP);
      logger.warn({ err: error, lease: name, failures: failure?.failures }, 'cannot renew the lease; retrying');
    }
    this.schedule();
  }

  private async lost(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    const { leases, name, logger } = this.deps;
    const holder = await leases.read(name).catch(() => null);
    const error = new LeaseLostError(name, holder);
    logger.error({ lease: name, holder }, error.message);
    this.deps.onLost?.(error);
  }

  /** Stops renewing and frees the lease (when still this process's), so that the next holder need not wait. */
  async release(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.ended) return;
    this.ended = true;
    try {
      await this.deps.leases.release(this.deps.name, this.owner);
      this.deps.logger.info({ lease: this.deps.name, owner: this.owner }, 'lease released');
    } catch (error) {
      // It runs out by itself: the next holder takes it over once it is stale.
      this.deps.logger.warn({ err: error, lease: this.deps.name }, 'cannot release the lease; it will be taken over once stale');
    }
  }
}
