import type { Collection, Db } from 'mongodb';
import type { ConsoleSessionRecord, ConsoleSessionStore } from '../../application/ports/ConsoleSessionStore.js';

/** The collection of console sessions, beside the read models (never a read model's name). */
export const CONSOLE_SESSIONS_COLLECTION = 'consoleSessions';

interface SessionDocument {
  _id: string;
  companyId: string;
  /** Absent on sessions opened before sessions recorded it: as null. */
  adminTokenId?: string | null;
  secretHash: string;
  createdAt: Date;
  expiresAt: Date;
  idleExpiresAt: Date;
  /** The earlier of the two ends: the TTL index deletes the session some time after it. */
  endsAt: Date;
}

const recordOf = (doc: SessionDocument): ConsoleSessionRecord => ({
  sessionId: doc._id,
  companyId: doc.companyId,
  adminTokenId: doc.adminTokenId ?? null,
  secretHash: doc.secretHash,
  createdAt: doc.createdAt,
  expiresAt: doc.expiresAt,
  idleExpiresAt: doc.idleExpiresAt,
});

const earlier = (a: Date, b: Date): Date => (a.getTime() <= b.getTime() ? a : b);

/**
 * Production: console sessions in MongoDB, so every API instance knows them. A
 * resume is one `findOneAndUpdate` whose filter is the session still open; a TTL
 * index on `endsAt` removes ended ones. The client belongs to the read-model store,
 * which closes it.
 */
export class MongoConsoleSessionStore implements ConsoleSessionStore {
  private constructor(private readonly sessions: Collection<SessionDocument>) {}

  static async create(db: Db, collection: string = CONSOLE_SESSIONS_COLLECTION): Promise<MongoConsoleSessionStore> {
    const sessions = db.collection<SessionDocument>(collection);
    await sessions.createIndex({ endsAt: 1 }, { expireAfterSeconds: 0, name: 'endsAt_ttl' });
    await sessions.createIndex({ companyId: 1 }, { name: 'companyId' });
    await sessions.createIndex({ adminTokenId: 1 }, { name: 'adminTokenId', sparse: true });
    return new MongoConsoleSessionStore(sessions);
  }

  async open(session: ConsoleSessionRecord): Promise<void> {
    await this.sessions.insertOne({
      _id: session.sessionId,
      companyId: session.companyId,
      adminTokenId: session.adminTokenId,
      secretHash: session.secretHash,
      createdAt: session.createdAt,
      expiresAt: session.expiresAt,
      idleExpiresAt: session.idleExpiresAt,
      endsAt: earlier(session.expiresAt, session.idleExpiresAt),
    });
  }

  async resume(sessionId: string, secretHash: string, now: Date, idleMs: number): Promise<ConsoleSessionRecord | null> {
    const idleEnd = new Date(now.getTime() + idleMs);
    const resumed = await this.sessions.findOneAndUpdate(
      { _id: sessionId, secretHash, expiresAt: { $gt: now }, idleExpiresAt: { $gt: now } },
      // The idle end never past the absolute one: an aggregation update reads the document's own expiresAt.
      [{ $set: { idleExpiresAt: { $min: [idleEnd, '$expiresAt'] }, endsAt: { $min: [idleEnd, '$expiresAt'] } } }],
      { returnDocument: 'after' },
    );
    return resumed ? recordOf(resumed) : null;
  }

  async end(sessionId: string, secretHash: string): Promise<boolean> {
    return (await this.sessions.deleteOne({ _id: sessionId, secretHash })).deletedCount === 1;
  }

  async endAll(which: { readonly companyId: string } | { readonly adminTokenId: string }): Promise<number> {
    const filter = 'companyId' in which ? { companyId: which.companyId } : { adminTokenId: which.adminTokenId };
    return (await this.sessions.deleteMany(filter)).deletedCount;
  }

  async prune(now: Date, limit: number): Promise<number> {
    const ended = await this.sessions.find({ endsAt: { $lte: now } }, { projection: { _id: 1 } }).limit(limit).toArray();
    if (ended.length === 0) return 0;
    // The end checked again on delete: a resume may have moved it meanwhile.
    return (await this.sessions.deleteMany({ _id: { $in: ended.map((doc) => doc._id) }, endsAt: { $lte: now } })).deletedCount;
  }

  async close(): Promise<void> {
    // The client is the read-model store's.
  }
}
