import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import type { UsageCounters, UsageRow } from '../../application/ports/UsageCounters.js';

/** The collection of usage counters, beside the read models (never a read model's name). */
export const USAGE_COUNTERS_COLLECTION = 'usageCounters';

interface CounterDocument {
  companyId: string;
  hour: Date;
  /** '' for deliveries, which have no key. */
  keyId: string;
  requests: number;
  limited: number;
  deliveriesOk: number;
  deliveriesFailed: number;
}

/**
 * Production: usage counters in MongoDB, shared by every instance. A batch is one
 * unordered bulk write of `$inc` upserts on a unique (companyId, hour, keyId)
 * index, so the batches of several processes add up. The client belongs to the
 * read-model store, which closes it.
 */
export class MongoUsageCounters implements UsageCounters {
  private constructor(private readonly counters: Collection<CounterDocument>) {}

  static async create(db: Db, collection: string = USAGE_COUNTERS_COLLECTION): Promise<MongoUsageCounters> {
    const counters = db.collection<CounterDocument>(collection);
    await counters.createIndex({ companyId: 1, hour: 1, keyId: 1 }, { unique: true, name: 'companyId_hour_keyId_unique' });
    await counters.createIndex({ hour: 1 }, { name: 'hour' });
    return new MongoUsageCounters(counters);
  }

  async add(rows: readonly UsageRow[]): Promise<void> {
    if (rows.length === 0) return;
    const operations: AnyBulkWriteOperation<CounterDocument>[] = rows.map((row) => ({
      updateOne: {
        filter: { companyId: row.companyId, hour: row.hour, keyId: row.keyId ?? '' },
        update: { $inc: { requests: row.requests, limited: row.limited, deliveriesOk: row.deliveriesOk, deliveriesFailed: row.deliveriesFailed } },
        upsert: true,
      },
    }));
    await this.counters.bulkWrite(operations, { ordered: false });
  }

  async read(companyId: string, from: Date, to: Date): Promise<readonly UsageRow[]> {
    const docs = await this.counters.find({ companyId, hour: { $gte: from, $lt: to } }).toArray();
    return docs.map((doc) => ({
      companyId: doc.companyId,
      hour: doc.hour,
      keyId: doc.keyId === '' ? null : doc.keyId,
      requests: doc.requests,
      limited: doc.limited,
      deliveriesOk: doc.deliveriesOk,
      deliveriesFailed: doc.deliveriesFailed,
    }));
  }

  async prune(before: Date): Promise<number> {
    return (await this.counters.deleteMany({ hour: { $lt: before } })).deletedCount;
  }

  async forgetCompany(companyId: string): Promise<number> {
    return (await this.counters.deleteMany({ companyId })).deletedCount;
  }

  async close(): Promise<void> {
    // The client is the read-model store's.
  }
}
