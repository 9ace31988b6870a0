import type { ClaimOutcome, LeaseClaim, LeaseHolder, LeaseRecord, LeaseStore } from '../../application/ports/LeaseStore.js';
import { systemClock, type Clock } from '../../shared/Clock.js';

/** What is kept of a lease: its holder and its two times, in ms of the store's clock. */
interface Held {
  readonly holder: LeaseHolder;
  readonly acquiredAt: number;
  readonly renewedAt: number;
}

/**
 * Leases of one process's in-memory read models (tests): nobody else can see
 * them, so they only order this process's own holders. Its clock is the store's
 * (injected in tests, to stand for a database server's clock).
 */
export class MemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, Held>();

  constructor(private readonly clock: Clock = systemClock) {}

  async read(name: string): Promise<LeaseRecord | null> {
    const held = this.leases.get(name);
    return held ? this.record(held) : null;
  }

  async claim(name: string, holder: LeaseHolder, { staleAfterMs, replacing = null }: LeaseClaim): Promise<ClaimOutcome> {
    const now = this.clock.now().getTime();
    const current = this.leases.get(name);
    const free = current === undefined || current.holder.owner === replacing || now - current.renewedAt >= staleAfterMs;
    if (!free) return { taken: false, holder: this.record(current) };
    const taken: Held = { holder: { ...holder }, acquiredAt: now, renewedAt: now };
    this.leases.set(name, taken);
    return { taken: true, lease: this.record(taken) };
  }

  async renew(name: string, owner: string): Promise<boolean> {
    const current = this.leases.get(name);
    if (current?.holder.owner !== owner) return false;
    this.leases.set(name, { ...current, renewedAt: this.clock.now().getTime() });
    return true;
  }

  async release(name: string, owner: string): Promise<void> {
    if (this.leases.get(name)?.holder.owner === owner) this.leases.delete(name);
  }

  private record({ holder, acquiredAt, renewedAt }: Held): LeaseRecord {
    const { owner, role, pid, host, scope } = holder;
    return {
      owner,
      role,
      pid,
      host,
      scope,
      acquiredAt: new Date(acquiredAt).toISOString(),
      renewedAt: new Date(renewedAt).toISOString(),
      silentMs: Math.max(0, this.clock.now().getTime() - renewedAt),
    };
  }
}
