import type { LeaseRecord, LeaseStore } from '../../application/ports/LeaseStore.js';

/** Leases of one process's in-memory read models (tests): nobody else can see them, so they only order this process's own holders. */
export class MemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, LeaseRecord>();

  async read(name: string): Promise<LeaseRecord | null> {
    return this.leases.get(name) ?? null;
  }

  async claim(name: string, record: LeaseRecord, replacing: LeaseRecord | null): Promise<boolean> {
    const current = this.leases.get(name) ?? null;
    const unchanged =
      replacing === null ? current === null : current !== null && current.owner === replacing.owner && current.renewedAt === replacing.renewedAt;
    if (!unchanged) return false;
    this.leases.set(name, record);
    return true;
  }

  async renew(name: string, owner: string, at: string): Promise<boolean> {
    const current = this.leases.get(name);
    if (current?.owner !== owner) return false;
    this.leases.set(name, { ...current, renewedAt: at });
    return true;
  }

  async release(name: string, owner: string): Promise<void> {
    if (this.leases.get(name)?.owner === owner) this.leases.delete(name);
  }
}
