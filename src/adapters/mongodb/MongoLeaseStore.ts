import { MongoServerError, type Collection, type Document } from 'mongodb';
import type { ClaimOutcome, LeaseClaim, LeaseHolder, LeaseRecord, LeaseStore } from '../../application/ports/LeaseStore.js';

/**
 * A lease as stored: one document per lease, named by `_id`, its times BSON dates
 * of the server's clock (a release before this one wrote ISO strings: `$toDate`
 * reads both).
 */
interface StoredLease extends LeaseHolder {
  readonly _id: string;
  readonly acquiredAt: Date | string;
  readonly renewedAt: Date | string;
}

const DUPLICATE_KEY = 11000;

/** How long ago, in ms of the server's clock, the lease was last renewed. */
const SILENT_MS = { $subtract: ['$$NOW', { $toDate: '$renewedAt' }] };

const iso = (value: Date | string): string => (value instanceof Date ? value.toISOString() : new Date(value).toISOString());

/**
 * The claim as one update pipeline: every field of the holder is replaced when
 * the lease is free (a document being inserted has no owner yet), held by the
 * owner known to be gone, or stale by `$$NOW`; otherwise each keeps its value.
 * One `$set` stage evaluates every expression on the document as it was, so the
 * condition is the same for all fields.
 */
export const claimPipeline = (holder: LeaseHolder, { staleAfterMs, replacing = null }: LeaseClaim): Document[] => {
  const takes = {
    $or: [
      { $eq: [{ $type: '$owner' }, 'missing'] },
      ...(replacing === null ? [] : [{ $eq: ['$owner', { $literal: replacing }] }]),
      { $gte: [SILENT_MS, staleAfterMs] },
    ],
  };
  const either = (value: unknown, field: string) => ({ $cond: [takes, value, `$${field}`] });
  const { owner, role, pid, host, scope } = holder;
  return [
    {
      $set: {
        owner: either({ $literal: owner }, 'owner'),
        role: either({ $literal: role }, 'role'),
        pid: either({ $literal: pid }, 'pid'),
        host: either({ $literal: host }, 'host'),
        scope: either({ $literal: scope }, 'scope'),
        acquiredAt: either('$$NOW', 'acquiredAt'),
        renewedAt: either('$$NOW', 'renewedAt'),
      },
    },
  ];
};

/**
 * Leases in the `leases` collection beside the read models, shared by every
 * instance on the database. A claim is one `findOneAndUpdate` upsert whose
 * pipeline decides by the server's clock (`$$NOW`) whether the lease is taken
 * (single-document writes are atomic); a renewal stamps `$$NOW`; a release
 * deletes the document only while its owner holds it.
 */
export class MongoLeaseStore implements LeaseStore {
  constructor(private readonly leases: Collection<StoredLease>) {}

  async read(name: string): Promise<LeaseRecord | null> {
    const [found] = await this.leases.aggregate<StoredLease & { silentMs: number }>([{ $match: { _id: name } }, { $set: { silentMs: SILENT_MS } }]).toArray();
    return found ? toRecord(found) : null;
  }

  async claim(name: string, holder: LeaseHolder, claim: LeaseClaim): Promise<ClaimOutcome> {
    let after: StoredLease | null;
    try {
      after = await this.leases.findOneAndUpdate({ _id: name }, claimPipeline(holder, claim), { upsert: true, returnDocument: 'after' });
    } catch (error) {
      // Two claimants inserting a free lease at once: the loser's insert meets the winner's document.
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
      after = null;
    }
    if (after !== null && after.owner === holder.owner) return { taken: true, lease: toRecord({ ...after, silentMs: 0 }) };
    return { taken: false, holder: await this.read(name) };
  }

  async renew(name: string, owner: string): Promise<boolean> {
    const renewed = await this.leases.updateOne({ _id: name, owner }, [{ $set: { renewedAt: '$$NOW' } }]);
    return renewed.matchedCount === 1;
  }

  async release(name: string, owner: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, owner });
  }
}

const toRecord = (stored: StoredLease & { readonly silentMs: number }): LeaseRecord => ({
  owner: stored.owner,
  role: stored.role,
  pid: stored.pid,
  host: stored.host,
  scope: stored.scope ?? null,
  acquiredAt: iso(stored.acquiredAt),
  renewedAt: iso(stored.renewedAt),
  silentMs: Math.max(0, Number(stored.silentMs)),
});
