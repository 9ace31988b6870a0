import { randomUUID } from 'node:crypto';
import { MongoServerError, type Collection, type Db } from 'mongodb';
import { ADMIN_SCOPE_PREFIX, ERASED_FINGERPRINT } from '../../application/ports/IdempotencyStore.js';
import { escapeRegex } from './escapeRegex.js';
import type {
  ClaimOutcome,
  IdempotencyClaim,
  IdempotencyCompletion,
  IdempotencyStore,
  StoredResponse,
} from '../../application/ports/IdempotencyStore.js';

/** The collection of idempotency keys, beside the read models (never a read model's name). */
export const IDEMPOTENCY_KEYS_COLLECTION = 'idempotencyKeys';

interface KeyDocument {
  companyId: string;
  key: string;
  fingerprint: string;
  state: 'in_flight' | 'completed';
  token: string;
  /** The response as JSON text: a body's own field names (`$…`, dots) never meet MongoDB's rules. */
  response: string | null;
  /** When the record stops counting; the TTL index deletes it some time after (MongoDB's monitor runs every minute). */
  expiresAt: Date;
}

const DUPLICATE_KEY = 11000;
/** A take-over of an expired record can lose to another one; each loss re-reads. */
const MAX_CLAIM_ROUNDS = 5;

/**
 * Production: idempotency keys in MongoDB, so every API instance sees the same
 * claims and responses. A unique index on (companyId, key) makes the first insert
 * the only claim; an expired record is taken over with a compare-and-set on its
 * token; a TTL index on `expiresAt` removes old records. The client belongs to the
 * read-model store, which closes it.
 */
export class MongoIdempotencyStore implements IdempotencyStore {
  private readonly keys: Collection<KeyDocument>;

  private constructor(db: Db, collection: string) {
    this.keys = db.collection<KeyDocument>(collection);
  }

  /** The store, with its unique and TTL indexes created (idempotent). */
  static async create(db: Db, collection: string = IDEMPOTENCY_KEYS_COLLECTION): Promise<MongoIdempotencyStore> {
    const store = new MongoIdempotencyStore(db, collection);
    await store.keys.createIndex({ companyId: 1, key: 1 }, { unique: true, name: 'companyId_key_unique' });
    await store.keys.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expiresAt_ttl' });
    return store;
  }

  async claim(claim: IdempotencyClaim): Promise<ClaimOutcome> {
    const { companyId, key, fingerprint, now, claimTtlMs } = claim;
    const token = randomUUID();
    const fresh: KeyDocument = {
      companyId,
      key,
      fingerprint,
      state: 'in_flight',
      token,
      response: null,
      expiresAt: new Date(now.getTime() + claimTtlMs),
    };
    for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
      try {
        await this.keys.insertOne({ ...fresh });
        return { kind: 'claimed', token };
      } catch (error) {
        if (!(error instanceof MongoServerError) || error.code !== DUPLICATE_KEY) throw error;
      }
      const existing = await this.keys.findOne({ companyId, key });
      if (!existing) continue; // deleted meanwhile (TTL, release): insert again
      if (existing.expiresAt.getTime() > now.getTime()) {
        if (existing.state === 'in_flight') return { kind: 'in_flight', fingerprint: existing.fingerprint };
        return {
          kind: 'completed',
          fingerprint: existing.fingerprint,
          response: JSON.parse(existing.response ?? 'null') as StoredResponse,
        };
      }
      // Expired but not yet removed: take it over, unless another request did first.
      const taken = await this.keys.updateOne({ companyId, key, token: existing.token }, { $set: fresh });
      if (taken.modifiedCount === 1) return { kind: 'claimed', token };
    }
    throw new Error(`Idempotency key could not be claimed after ${MAX_CLAIM_ROUNDS} rounds`);
  }

  async complete(completion: IdempotencyCompletion): Promise<boolean> {
    const { companyId, key, token, response, now, retentionMs } = completion;
    const updated = await this.keys.updateOne(
      { companyId, key, token, state: 'in_flight' },
      { $set: { state: 'completed', response: JSON.stringify(response), expiresAt: new Date(now.getTime() + retentionMs) } },
    );
    return updated.modifiedCount === 1;
  }

  async release({ companyId, key, token }: { companyId: string; key: string; token: string }): Promise<void> {
    await this.keys.deleteOne({ companyId, key, token, state: 'in_flight' });
  }

  async eraseMentions(companyId: string, id: string, rewrite: (response: StoredResponse) => StoredResponse): Promise<number> {
    // Responses are JSON text: the id is looked for in it as text, in the company's records and the admin API's.
    const scopes = [{ companyId }, { companyId: { $regex: `^${escapeRegex(ADMIN_SCOPE_PREFIX)}` } }];
    const found = await this.keys.find({ $or: scopes, state: 'completed', response: { $regex: escapeRegex(id) } }).toArray();
    let changed = 0;
    for (const record of found) {
      const response = rewrite(JSON.parse(record.response ?? 'null') as StoredResponse);
      const updated = await this.keys.updateOne(
        { companyId: record.companyId, key: record.key, token: record.token },
        { $set: { fingerprint: ERASED_FINGERPRINT, response: JSON.stringify(response) } },
      );
      changed += updated.modifiedCount;
    }
    return changed;
  }

  async forgetCompany(companyId: string): Promise<number> {
    return (await this.keys.deleteMany({ companyId })).deletedCount;
  }

  async close(): Promise<void> {
    // The MongoDB client is the read-model store's; it closes it.
  }
}
