/** Where an export stands: asked for, being written, ready to download, or failed. */
export type CompanyExportState = 'pending' | 'running' | 'ready' | 'failed';

/** How far an export has come: events and records written so far, of how many (null: not counted yet). */
export interface CompanyExportProgress {
  readonly events: number;
  readonly eventsTotal: number | null;
  readonly records: number;
  readonly recordsTotal: number | null;
}

/** One export of a company's data, as its store keeps it (times ISO 8601 UTC). */
export interface CompanyExportRecord {
  readonly id: string;
  readonly companyId: string;
  readonly state: CompanyExportState;
  readonly progress: CompanyExportProgress;
  readonly createdAt: string;
  /** When the export and its bytes are deleted (by the sweep; reads treat it as gone from then). */
  readonly expiresAt: string;
  /** When it became ready or failed; null before. */
  readonly finishedAt: string | null;
  /** The archive's size in bytes, once ready; null before. */
  readonly size: number | null;
}

/** What `update` may change of an export. */
export type CompanyExportChange = Partial<Pick<CompanyExportRecord, 'state' | 'progress' | 'finishedAt' | 'size'>>;

/**
 * Company exports and their bytes, kept where every API process can serve them
 * (the SQLite file `DATA_DIR/exports.sqlite`, PostgreSQL's tables, MongoDB's
 * collections): an archive is written as numbered chunks, in any order, and read
 * back in the chunks' order. An archive holds the company's people's values, so
 * deleting one overwrites them where the engine can (SQLite's `secure_delete`).
 */
export interface CompanyExportStore {
  create(record: CompanyExportRecord): Promise<void>;
  /** The export, or null when there is none of that company with that id. */
  get(companyId: string, exportId: string): Promise<CompanyExportRecord | null>;
  update(companyId: string, exportId: string, change: CompanyExportChange): Promise<void>;
  /** Stores chunk number `seq` (0-based) of the export's archive, replacing one stored there before. */
  writeChunk(exportId: string, seq: number, bytes: Uint8Array): Promise<void>;
  /** The archive's chunks in their order, a few at a time (never the whole archive in memory). */
  readChunks(exportId: string): AsyncIterable<Uint8Array>;
  /** Deletes every export of the company with its bytes; answers how many. */
  deleteCompany(companyId: string): Promise<number>;
  /** Deletes every export whose `expiresAt` is not after `now`, with its bytes; answers how many. */
  deleteExpired(now: Date): Promise<number>;
  close(): Promise<void>;
}
