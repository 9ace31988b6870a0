import { MongoServerError, type Collection } from 'mongodb';
import type { LeaseRecord, LeaseStore } from '../../application/ports/LeaseStore.js';

const DUPLICATE_KEY = 11000;

/** A lease as stored: one document per lease, named by `_id`. */
interface StoredLease extends LeaseRecord {
  readonly _id: string;
}

/**
 * Leases in the `leases` collection beside the read models, shared by every
 * instance on the database. Each change is one single-document write, atomic in
 * MongoDB: an insert (a second insert of a name fails on `_id`), or a replace,
 * update or delete whose filter holds what the caller read.
 */
export class MongoLeaseStore implements LeaseStore {
  constructor(private readonly leases: Collection<StoredLease>) {}

  async read(name: string): Promise<LeaseRecord | null> {
    const found = await this.leases.findOne({ _id: name });
    if (!found) return null;
    const { owner, role, pid, host, scope, acquiredAt, renewedAt } = found;
    return { owner, role, pid, host, scope, acquiredAt, renewedAt };
  }

  async claim(name: string, record: LeaseRecord, replacing: LeaseRecord | null): Promise<boolean> {
    const { owner, role, pid, host, scope, acquiredAt, renewedAt } = record;
    const stored: StoredLease = { _id: name, owner, role, pid, host, scope, acquiredAt, renewedAt };
    if (replacing === null) {
      try {
        await this.leases.insertOne(stored);
        return true;
      } catch (error) {
        if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
        throw error;
      }
    }
    const replaced = await this.leases.replaceOne({ _id: name, owner: replacing.owner, renewedAt: replacing.renewedAt }, stored);
    return replaced.matchedCount === 1;
  }

  async renew(name: string, owner: string, at: string): Promise<boolean> {
    const renewed = await this.leases.updateOne({ _id: name, owner }, { $set: { renewedAt: at } });
    return renewed.matchedCount === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, owner });
  }
}
