import { MongoBulkWriteError, MongoServerError, type AnyBulkWriteOperation, type Collection, type Db } from 'mongodb';
import type { ErasedSubject, SubjectKeyStore } from '../../application/ports/SubjectKeyStore.js';

/** The collection of subject keys, beside the read models (never a read model's name). */
export const SUBJECT_KEYS_COLLECTION = 'subjectKeys';

interface SubjectKeyDocument {
  /** The subject (`contact:<id>`, `user:<id>`). */
  _id: string;
  /** The key text; absent once the subject was erased. */
  key?: string;
  /** When the subject was erased (the first time); absent while it was not. */
  erasedAt?: Date;
}

const DUPLICATE_KEY = 11000;

/** A write refused only because another one inserted the same `_id` first (two upserts at once). */
const lostInsertRace = (error: unknown): boolean => {
  if (!(error instanceof MongoBulkWriteError)) return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
  const refused = [error.writeErrors].flat();
  return error.err === undefined && refused.length > 0 && refused.every((refusal) => refusal.code === DUPLICATE_KEY);
};

/**
 * Production: the subjects' data keys in MongoDB, one document per subject keyed
 * by it, so every API instance sees the same keys. A key is written only by an
 * upsert that sets it on insert: a document already there (a key, or an erased
 * subject) is left as it is, and of several calls for one subject the first insert
 * wins. The client belongs to the read-model store, which closes it.
 *
 * An erased key's bytes stay in the collection's data files, the oplog and the
 * journal until MongoDB writes over them (`compact`, the oplog's rollover): the
 * port's "engine's compaction".
 */
export class MongoSubjectKeyStore implements SubjectKeyStore {
  private readonly keys: Collection<SubjectKeyDocument>;

  constructor(db: Db, collection: string = SUBJECT_KEYS_COLLECTION) {
    this.keys = db.collection<SubjectKeyDocument>(collection);
  }

  async get(subjects: readonly string[]): Promise<ReadonlyMap<string, string>> {
    if (subjects.length === 0) return new Map();
    const found = await this.keys.find({ _id: { $in: [...subjects] }, key: { $type: 'string' } }, { projection: { key: 1 } }).toArray();
    return new Map(found.map((document) => [document._id, document.key!]));
  }

  /**
   * One unordered bulk of upserts (a round trip), each setting the key only on
   * insert; when every one inserted, the candidates are the answer, else the keys
   * are read. An upsert that lost the insert to a concurrent one for the same
   * subject (a duplicate key the server did not retry by itself) found the
   * document it would have made: the read answers its key.
   */
  async putIfAbsent(candidates: ReadonlyMap<string, string>): Promise<ReadonlyMap<string, string>> {
    if (candidates.size === 0) return new Map();
    const upserts: AnyBulkWriteOperation<SubjectKeyDocument>[] = [...candidates].map(([subject, key]) => ({
      updateOne: { filter: { _id: subject }, update: { $setOnInsert: { key } }, upsert: true },
    }));
    try {
      const { upsertedCount } = await this.keys.bulkWrite(upserts, { ordered: false });
      if (upsertedCount === candidates.size) return candidates;
    } catch (error) {
      if (!lostInsertRace(error)) throw error;
    }
    return this.get([...candidates.keys()]);
  }

  /**
   * One upsert whose pipeline removes the key and keeps the erasure time already
   * there (`$ifNull`: the first erasure's, as the other engines keep it), else sets
   * `at`; a subject never seen gets a document without a key.
   */
  async erase(subject: string, at: Date): Promise<void> {
    const update = [{ $set: { erasedAt: { $ifNull: ['$erasedAt', { $literal: at }] } } }, { $unset: 'key' }];
    try {
      await this.keys.updateOne({ _id: subject }, update, { upsert: true });
    } catch (error) {
      if (!lostInsertRace(error)) throw error;
      // Another write inserted the document first: it is there now, to update.
      await this.keys.updateOne({ _id: subject }, update, { upsert: true });
    }
  }

  async erasedAt(subject: string): Promise<Date | null> {
    const found = await this.keys.findOne({ _id: subject }, { projection: { erasedAt: 1 } });
    return found?.erasedAt ?? null;
  }

  async erased(): Promise<readonly ErasedSubject[]> {
    const found = await this.keys.find({ erasedAt: { $type: 'date' } }, { projection: { erasedAt: 1 } }).sort({ erasedAt: 1, _id: 1 }).toArray();
    return found.map((document) => ({ subject: document._id, erasedAt: document.erasedAt! }));
  }

  async close(): Promise<void> {
    // The MongoDB client is the read-model store's; it closes it.
  }
}
