import { randomUUID } from 'node:crypto';
import { MongoServerError, type Collection, type Db, type Document } from 'mongodb';
import { RateLimiterMongo } from 'rate-limiter-flexible';
import type { RateLimits, ReleaseSlot } from '../../application/ports/RateLimitCounters.js';
import {
  DEFAULT_LEASE_SECONDS,
  FlexibleRateLimitCounters,
  type RateLimitCounterOptions,
} from '../rateLimiterFlexible/FlexibleRateLimitCounters.js';

const DUPLICATE_KEY = 11000;

/** The collection of every rate-limit counter, beside the read models. */
export const RATE_LIMIT_COLLECTION = 'rateLimits';

export interface MongoRateLimitCounterOptions extends RateLimitCounterOptions {
  /** Collection name (default `rateLimits`); must not be a read model's name. */
  readonly collection?: string;
}

/** A key's concurrency slots as stored: one document, each slot taken an entry that holds until its lease ends. */
interface StoredSlots {
  readonly key: string;
  readonly held?: readonly { readonly id: string; readonly until: Date }[];
  /** When the last lease ends: the collection's TTL index removes the document then. */
  readonly expire?: Date;
}

/**
 * Taking a slot as one update pipeline, by the server's clock: drop the entries
 * whose lease ended, then add this one's if fewer than `concurrent` remain. One
 * `$set` stage per step, each seeing the document as the one before left it.
 */
export const takeSlotPipeline = (slotId: string, concurrent: number, leaseMs: number): Document[] => [
  { $set: { held: { $filter: { input: { $ifNull: ['$held', []] }, cond: { $gt: ['$$this.until', '$$NOW'] } } } } },
  {
    $set: {
      held: {
        $cond: [
          { $lt: [{ $size: '$held' }, concurrent] },
          { $concatArrays: ['$held', [{ id: { $literal: slotId }, until: { $add: ['$$NOW', leaseMs] } }]] },
          '$held',
        ],
      },
    },
  },
  { $set: { expire: { $max: [{ $ifNull: ['$expire', '$$NOW'] }, { $add: ['$$NOW', leaseMs] }] } } },
];

/**
 * Production: counters in MongoDB (RateLimiterMongo), so that every API instance
 * counts against the same hourly, daily and concurrency limits. One collection
 * holds all of them (window keys are prefixed `hourly:`, `daily:`; a key's slots
 * are one document keyed `slots:`), with a unique index on the key and a TTL index
 * on the expiry, so finished windows and leases of dead processes are cleaned up
 * by MongoDB itself. Each count is one atomic `findOneAndUpdate` upsert, and so is
 * taking a concurrency slot, whatever `RATE_LIMIT_CONCURRENT` (one round trip, not
 * one per slot tried), its leases timed by the server's clock.
 */
export class MongoRateLimitCounters extends FlexibleRateLimitCounters {
  private readonly store: RateLimiterMongo;
  private readonly slotsCollection: Collection<StoredSlots>;
  private readonly leaseMs: number;

  private constructor(db: Db, collection: string, limits: RateLimits, options: RateLimitCounterOptions) {
    const made: RateLimiterMongo[] = [];
    super(
      limits,
      (spec) => {
        // Indexes are created once, by `create`, where a failure stops start-up instead of being logged.
        const limiter = new RateLimiterMongo({ ...spec, storeClient: db, tableName: collection, disableIndexesCreation: true });
        made.push(limiter);
        return limiter;
      },
      options,
    );
    const [first] = made;
    if (!first) throw new Error('no rate limiter was created');
    this.store = first;
    this.slotsCollection = db.collection<StoredSlots>(collection);
    this.leaseMs = (options.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  }

  /** Counters in `db` (the read models' database), with their indexes in place. */
  static async create(db: Db, limits: RateLimits, options: MongoRateLimitCounterOptions = {}): Promise<MongoRateLimitCounters> {
    const counters = new MongoRateLimitCounters(db, options.collection ?? RATE_LIMIT_COLLECTION, limits, options);
    await counters.store.createIndexes();
    return counters;
  }

  override async acquire(keyId: string): Promise<ReleaseSlot | null> {
    const key = `slots:${keyId}`;
    const slotId = randomUUID();
    const pipeline = takeSlotPipeline(slotId, this.limits.concurrent, this.leaseMs);
    let after: StoredSlots | null;
    try {
      after = await this.slotsCollection.findOneAndUpdate({ key }, pipeline, { upsert: true, returnDocument: 'after', projection: { held: 1 } });
    } catch (error) {
      // Two first takers of a key at once: the loser's insert met the winner's document; take it as it is now.
      if (!(error instanceof MongoServerError && error.code === DUPLICATE_KEY)) throw error;
      after = await this.slotsCollection.findOneAndUpdate({ key }, pipeline, { returnDocument: 'after', projection: { held: 1 } });
    }
    if (!after?.held?.some((slot) => slot.id === slotId)) return null;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      // Its own entry only: past its lease it is already gone, and no one else's can be taken by mistake.
      await this.slotsCollection.updateOne({ key }, { $pull: { held: { id: slotId } } });
    };
  }
}
