import { Binary, type Collection, type Db } from 'mongodb';
import type { CompanyExportChange, CompanyExportRecord, CompanyExportStore } from '../../application/ports/CompanyExportStore.js';

/** The collections of company exports and of their archives' chunks, beside the read models (never a read model's name). */
export const COMPANY_EXPORTS_COLLECTION = 'companyExports';
export const COMPANY_EXPORT_CHUNKS_COLLECTION = 'companyExportChunks';

interface ExportDocument {
  _id: string;
  companyId: string;
  expiresAt: Date;
  record: CompanyExportRecord;
}

interface ChunkDocument {
  exportId: string;
  seq: number;
  bytes: Binary;
}

/** Chunks read per batch of the cursor. */
const READ_BATCH = 8;

/**
 * Production: company exports in MongoDB, so every API instance serves them: one
 * document per export, and one per chunk of its archive (a chunk stays far below
 * a document's 16 MiB). Chunks are written out of order (a part's header after its
 * bytes), which GridFS's append-only upload does not allow. The client belongs to
 * the read-model store, which closes it.
 */
export class MongoCompanyExportStore implements CompanyExportStore {
  private constructor(
    private readonly exports: Collection<ExportDocument>,
    private readonly chunks: Collection<ChunkDocument>,
  ) {}

  static async create(db: Db): Promise<MongoCompanyExportStore> {
    const exports = db.collection<ExportDocument>(COMPANY_EXPORTS_COLLECTION);
    const chunks = db.collection<ChunkDocument>(COMPANY_EXPORT_CHUNKS_COLLECTION);
    await exports.createIndex({ companyId: 1 }, { name: 'companyId' });
    await exports.createIndex({ expiresAt: 1 }, { name: 'expiresAt' });
    await chunks.createIndex({ exportId: 1, seq: 1 }, { name: 'exportId_seq', unique: true });
    return new MongoCompanyExportStore(exports, chunks);
  }

  async create(record: CompanyExportRecord): Promise<void> {
    await this.exports.insertOne({ _id: record.id, companyId: record.companyId, expiresAt: new Date(record.expiresAt), record });
  }

  async get(companyId: string, exportId: string): Promise<CompanyExportRecord | null> {
    const doc = await this.exports.findOne({ _id: exportId, companyId });
    return doc?.record ?? null;
  }

  async update(companyId: string, exportId: string, change: CompanyExportChange): Promise<void> {
    const set = Object.fromEntries(Object.entries(change).map(([field, value]) => [`record.${field}`, value]));
    await this.exports.updateOne({ _id: exportId, companyId }, { $set: set });
  }

  async writeChunk(exportId: string, seq: number, bytes: Uint8Array): Promise<void> {
    await this.chunks.replaceOne({ exportId, seq }, { exportId, seq, bytes: new Binary(Buffer.from(bytes)) }, { upsert: true });
  }

  async *readChunks(exportId: string): AsyncIterable<Uint8Array> {
    const cursor = this.chunks.find({ exportId }, { sort: { seq: 1 }, batchSize: READ_BATCH });
    for await (const chunk of cursor) yield chunk.bytes.buffer;
  }

  async deleteCompany(companyId: string): Promise<number> {
    return this.deleteIds((await this.exports.find({ companyId }, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id));
  }

  async deleteExpired(now: Date): Promise<number> {
    return this.deleteIds((await this.exports.find({ expiresAt: { $lte: now } }, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id));
  }

  async close(): Promise<void> {}

  private async deleteIds(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    await this.chunks.deleteMany({ exportId: { $in: [...ids] } });
    const { deletedCount } = await this.exports.deleteMany({ _id: { $in: [...ids] } });
    return deletedCount;
  }
}
