import type { Clock } from '../../shared/Clock.js';
import { newId } from '../../shared/ids.js';
import type { LoopHealth } from './LoopHealth.js';
import type { LeaseHolder, LeaseRecord, LeaseStore } from '../ports/LeaseStore.js';
import type { Logger } from '../ports/Logger.js';

/** A holder renews its lease this often. */
export const LEASE_RENEW_EVERY_MS = 2_000;
/** A lease not renewed for this long may be taken over from anywhere (its holder is presumed dead). */
export const LEASE_STALE_AFTER_MS = 15_000;

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

const describeHolder = (holder: LeaseRecord, now: Date): string => {
  const renewedMs = Math.max(0, now.getTime() - Date.parse(holder.renewedAt));
  return `${holder.role === 'replay' ? 'a replay (chronicle replay)' : `a ${holder.role}`}, pid ${holder.pid} on host ${holder.host} (holding it since ${holder.acquiredAt}, renewed ${(renewedMs / 1000).toFixed(1)} s ago)`;
};

/** Another live process holds the lease: this one must not do the work it protects. */
export class LeaseHeldError extends Error {
  override readonly name = 'LeaseHeldError';
  constructor(
    readonly lease: string,
    readonly holder: LeaseRecord,
    now: Date,
    staleAfterMs: number,
  ) {
    const { taken, rule } = PROTECTED[lease] ?? { taken: `the "${lease}" lease is held by another process`, rule: 'One process at a time holds it' };
    super(
      `${taken}: ${describeHolder(holder, now)}. ${rule}: stop that one first. ` +
        `A lease whose process is gone is taken over at once on its own host, and by anyone ${staleAfterMs / 1000} s after its last renewal.`,
    );
  }
}

/** This process's lease was taken over by another process (it could not renew it in time): it must stop the work it protects. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(
    readonly lease: string,
    readonly holder: LeaseRecord | null,
    now: Date,
  ) {
    super(
      `lost the "${lease}" lease${holder ? ` to ${describeHolder(holder, now)}` : ''}: ` +
        'another process took it over after this one had not renewed it in time; stopping',
    );
  }
}

export interface LeaseDeps {
  readonly leases: LeaseStore;
  readonly name: string;
  readonly claimant: LeaseClaimant;
  /**
   * True only when the holder's process is certainly gone (on this host, in this
   * pid namespace, its pid no longer running); false whenever unsure (another host).
   */
  readonly holderIsGone: (holder: LeaseHolder) => boolean;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where failing renewals show (`/ready`'s `backgroundLoops`). */
  readonly health?: LoopHealth;
  /** Told once, when a renewal finds that another process holds the lease now. */
  readonly onLost?: (error: LeaseLostError) => void;
  readonly renewEveryMs?: number;
  readonly staleAfterMs?: number;
}

/** How many times a claim that lost a race is tried again (each reads the lease anew). */
const CLAIM_ATTEMPTS = 3;

/** The loop name under which failing renewals show in `/ready`. */
export const LEASE_LOOP = 'lease';

/**
 * An exclusive lease, held while this process does what it protects (the
 * projector writing the read models). Taken at start when free, stale (not
 * renewed for `staleAfterMs`) or held by a process that is gone; otherwise
 * `acquire` throws `LeaseHeldError`. Renewed every `renewEveryMs`; a renewal that
 * finds another owner tells `onLost` and stops renewing. A renewal that fails (the
 * store is down) is retried at the next one: the lease stays this process's until
 * another takes it over, which it can only once the lease is stale.
 */
export class Lease {
  private timer: NodeJS.Timeout | null = null;
  private ended = false;

  private constructor(
    private readonly deps: LeaseDeps,
    readonly holder: LeaseRecord,
  ) {}

  static async acquire(deps: LeaseDeps): Promise<Lease> {
    const { leases, name, clock, logger } = deps;
    const staleAfterMs = deps.staleAfterMs ?? LEASE_STALE_AFTER_MS;
    const owner = newId();
    for (let attempt = 1; ; attempt += 1) {
      const now = clock.now();
      const current = await leases.read(name);
      if (current !== null) {
        const silentMs = now.getTime() - Date.parse(current.renewedAt);
        const gone = deps.holderIsGone(current);
        if (!gone && !(silentMs >= staleAfterMs)) throw new LeaseHeldError(name, current, now, staleAfterMs);
        logger.warn(
          { lease: name, previous: current, reason: gone ? 'its process is gone' : `not renewed for ${silentMs} ms` },
          'taking over a lease its holder left behind',
        );
      }
      const record: LeaseRecord = { owner, ...deps.claimant, acquiredAt: now.toISOString(), renewedAt: now.toISOString() };
      if (await leases.claim(name, record, current)) {
        const lease = new Lease(deps, record);
        lease.schedule();
        logger.info({ lease: name, owner, pid: record.pid, host: record.host }, 'lease taken');
        return lease;
      }
      if (attempt >= CLAIM_ATTEMPTS) throw new Error(`the "${name}" lease kept changing while it was being taken; try again`);
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
    const { leases, name, clock, logger, health } = this.deps;
    try {
      const held = await leases.renew(name, this.owner, clock.now().toISOString());
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
    const { leases, name, clock, logger } = this.deps;
    const holder = await leases.read(name).catch(() => null);
    const error = new LeaseLostError(name, holder, clock.now());
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
