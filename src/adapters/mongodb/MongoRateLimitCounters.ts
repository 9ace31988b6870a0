import type { Db } from 'mongodb';
import { RateLimiterMongo } from 'rate-limiter-flexible';
import type { RateLimits } from '../../application/ports/RateLimitCounters.js';
import { FlexibleRateLimitCounters, type RateLimitCounterOptions } from '../rateLimiterFlexible/FlexibleRateLimitCounters.js';

/** The collection of every rate-limit counter, beside the read models. */
export const RATE_LIMIT_COLLECTION = 'rateLimits';

export interface MongoRateLimitCounterOptions extends RateLimitCounterOptions {
  /** Collection name (default `rateLimits`); must not be a read model's name. */
  readonly collection?: string;
}

/**
 * Production: counters in MongoDB (RateLimiterMongo), so that every API instance
 * counts against the same hourly, daily and concurrency limits. One collection
 * holds all three kinds (keys are prefixed `hourly:`, `daily:`, `slot:`), with a
 * unique index on the key and a TTL index on the expiry, so finished windows and
 * leases of dead processes are cleaned up by MongoDB itself. Each count is one
 * atomic `findOneAndUpdate` upsert.
 */
export class MongoRateLimitCounters extends FlexibleRateLimitCounters {
  private readonly store: RateLimiterMongo;

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
  }

  /** Counters in `db` (the read models' database), with their indexes in place. */
  static async create(db: Db, limits: RateLimits, options: MongoRateLimitCounterOptions = {}): Promise<MongoRateLimitCounters> {
    const counters = new MongoRateLimitCounters(db, options.collection ?? RATE_LIMIT_COLLECTION, limits, options);
    await counters.store.createIndexes();
    return counters;
  }
}
