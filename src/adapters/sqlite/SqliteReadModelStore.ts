import type { Statement } from 'better-sqlite3';
import type { RecordedEvent } from '../../application/ports/EventStore.js';
import {
  CheckpointMovedError,
  type DocumentCollection,
  type Projection,
  type ReadModelDocument,
  type ReadModelStore,
  type ReplayedCheckpoint,
  type StagingReadModels,
} from '../../application/ports/ReadModelStore.js';
import { comparePositions } from '../../shared/Position.js';
import { SqliteCheckpointStore } from './SqliteCheckpointStore.js';
import { SqliteLeaseStore } from './SqliteLeaseStore.js';
import { openWalDatabase, truncateWal, type SqliteDatabase } from './openSqliteDatabase.js';
import { SqliteDocumentCollection, searchTextsOf } from './SqliteDocumentCollection.js';
import { ReadModelCompanies } from './ReadModelCompanies.js';
import {
  RETIRED_SUFFIX,
  STAGING_SUFFIX,
  checkReadModelName,
  createReadModelTable,
  FTS_SUFFIX,
  dropReadModelTable,
  ensureReadModelTable,
  quoteName,
  renameReadModelTable,
  tableExists,
  tablesEndingIn,
} from './readModelLayout.js';
import { layoutOf } from '../readModels/readModelLayout.js';
import { LOWER_FUNCTION } from './toSqliteFilter.js';

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE checkpoints (
     name     TEXT PRIMARY KEY,
     position TEXT NOT NULL
   );
   CREATE TABLE read_model_tables (
     name   TEXT PRIMARY KEY,
     layout TEXT NOT NULL
   );
   CREATE TABLE read_model_companies (
     cid        INTEGER PRIMARY KEY,
     company_id TEXT NOT NULL UNIQUE
   );`,
  // Exclusive leases (SqliteLeaseStore): one projector per DATA_DIR.
  `CREATE TABLE leases (
     name        TEXT PRIMARY KEY,
     owner       TEXT NOT NULL,
     role        TEXT NOT NULL,
     pid         INTEGER NOT NULL,
     host        TEXT NOT NULL,
     scope       TEXT,
     acquired_at TEXT NOT NULL,
     renewed_at  TEXT NOT NULL
   );`,
  // The id of the event at a checkpoint's position: the projector checks it against the log as it starts.
  `ALTER TABLE checkpoints ADD COLUMN event_id TEXT;`,
  // Read models created empty beside documents that had applied the log: built from the log before the projector resumes.
  `CREATE TABLE read_models_to_build (name TEXT PRIMARY KEY);`,
];

/**
 * Opens (and migrates) the read models' own SQLite file. WAL, so that other
 * processes read while one writes; `synchronous=NORMAL`: a commit is safe from a
 * crash of the process, and after a power loss the last commits may be gone, but
 * documents and checkpoint go together, so the runner applies them again from the
 * log (which is `synchronous=FULL`). Registers the lower-casing function searches
 * of fields without a stored text use.
 */
export const openReadModelDatabase = (file: string): SqliteDatabase =>
  openWalDatabase(file, {
    synchronous: 'NORMAL',
    migrations: MIGRATIONS,
    configure: (db) => {
      // Checkpoint the WAL every 40 MB instead of 4 MB: a rebuild writes a lot, and each checkpoint syncs.
      db.pragma('wal_autocheckpoint = 10000');
      // 64 MiB of page cache (the default is 2 MiB): the indexes of a large company's lists stay in memory.
      db.pragma('cache_size = -65536');
      db.pragma('temp_store = MEMORY');
      db.function(LOWER_FUNCTION, { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : null));
    },
  });

type AnyCollection = SqliteDocumentCollection<ReadModelDocument>;

/** Collections bound to projections, each in its own table (`<name>` or `<name>__replay`). */
class Collections {
  readonly byName = new Map<string, AnyCollection>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly companies: ReadModelCompanies,
    private readonly suffix: string,
  ) {}

  collection<D extends ReadModelDocument>(projection: Projection<D>): SqliteDocumentCollection<D> {
    checkReadModelName(projection.name);
    const existing = this.byName.get(projection.name);
    if (existing) {
      if (existing.projection !== (projection as unknown)) {
        throw new Error(`Collection ${projection.name} is already bound to another projection`);
      }
      return existing as unknown as SqliteDocumentCollection<D>;
    }
    const layout = layoutOf(projection as unknown as Projection<ReadModelDocument>);
    const table = projection.name + this.suffix;
    if (this.suffix === '') {
      // A table created beside documents that had applied the log lacks what came before: it is listed to be built.
      ensureReadModelTable(this.db, table, layout, searchTextsOf(layout), () => {
        const applied = this.db.prepare('SELECT 1 FROM checkpoints WHERE position IS NOT NULL LIMIT 1').get() !== undefined;
        if (applied) this.db.prepare('INSERT OR IGNORE INTO read_models_to_build (name) VALUES (?)').run(table);
      });
    } else {
      // A staged table always starts empty.
      const create = this.db.transaction(() => {
        dropReadModelTable(this.db, table);
        createReadModelTable(this.db, table, layout);
      });
      create.immediate();
    }
    const created = new SqliteDocumentCollection(projection, this.db, this.companies, table, layout);
    this.byName.set(projection.name, created as unknown as AnyCollection);
    return created;
  }
}

/**
 * A replay's tables, `<name>__replay` beside each live `<name>`, built while the
 * live ones serve. `swap` renames them over the live ones and saves the checkpoint
 * in one transaction: readers (in any process) see either every old read model or
 * every rebuilt one, never a mix.
 */
class SqliteStaging implements StagingReadModels {
  private readonly staged: Collections;
  private done = false;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly companies: ReadModelCompanies,
    private readonly checkpoints: SqliteCheckpointStore,
  ) {
    this.staged = new Collections(db, companies, STAGING_SUFFIX);
  }

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    if (this.done) throw new Error('This staging was already swapped in or discarded');
    return this.staged.collection(projection);
  }

  /** The tables are created as collections are handed out. */
  async init(): Promise<void> {}

  async applyBatch(collections: readonly DocumentCollection<ReadModelDocument>[], events: readonly RecordedEvent[]): Promise<void> {
    const own = ownCollections(this.db, collections);
    this.companies.write(() => own.forEach((collection) => collection.applyInTransaction(events)));
  }

  async swap(checkpoint: ReplayedCheckpoint): Promise<void> {
    if (this.done) throw new Error('This staging was already swapped in or discarded');
    const names = [...this.staged.byName.keys()];
    // Renames only (the old tables become `<name>__old`), so the write lock is held for moments.
    const swap = this.db.transaction(() => {
      if (checkpoint.expected !== undefined) {
        const now = this.checkpoints.loadNow(checkpoint.name);
        if (now !== checkpoint.expected) throw new CheckpointMovedError(checkpoint.name, checkpoint.expected, now);
      }
      const built = this.db.prepare('DELETE FROM read_models_to_build WHERE name = ?');
      for (const name of names) {
        dropReadModelTable(this.db, name + RETIRED_SUFFIX);
        if (tableExists(this.db, name)) renameReadModelTable(this.db, name, name + RETIRED_SUFFIX);
        renameReadModelTable(this.db, name + STAGING_SUFFIX, name);
        built.run(name);
      }
      if (checkpoint.position === null) this.checkpoints.resetNow(checkpoint.name);
      else this.checkpoints.saveNow(checkpoint.name, checkpoint.position, checkpoint.eventId ?? null);
    });
    swap.immediate();
    this.done = true;
    // Dropping large tables takes a while: after the swap, one at a time, each in a short transaction of its own.
    for (const name of names) dropInItsOwnTransaction(this.db, name + RETIRED_SUFFIX);
  }

  async discard(): Promise<void> {
    this.done = true;
    for (const name of this.staged.byName.keys()) dropInItsOwnTransaction(this.db, name + STAGING_SUFFIX);
  }
}

const dropInItsOwnTransaction = (db: SqliteDatabase, table: string): void => {
  db.transaction(() => dropReadModelTable(db, table)).immediate();
};

/** The collections as this adapter's own (a batch is applied inside its transaction). */
const ownCollections = (db: SqliteDatabase, collections: readonly DocumentCollection<ReadModelDocument>[]): AnyCollection[] =>
  collections.map((collection) => {
    if (!(collection instanceof SqliteDocumentCollection) || collection.db !== db) {
      throw new Error(`Collection ${collection.projection.name} does not belong to this store`);
    }
    return collection as AnyCollection;
  });

/**
 * Read models in their own SQLite file (embedded mode): one table per read model,
 * indexed as its projection declares, searched through an FTS5 trigram index, and
 * the read models' checkpoint in the same file, committed with the documents. A
 * restart resumes from the checkpoint; other processes on the same `DATA_DIR`
 * read the file while one writes (WAL).
 */
export class SqliteReadModelStore implements ReadModelStore {
  readonly kind = 'sqlite' as const;
  readonly durable = true;
  readonly checkpoints: SqliteCheckpointStore;
  readonly leases: SqliteLeaseStore;
  private readonly companies: ReadModelCompanies;
  private readonly collections: Collections;
  private readonly shareCommitMs: number;
  private readonly transaction: { begin: Statement; commit: Statement; rollback: Statement };
  /** The transaction batches share (`shareCommitMs`), while one is open. */
  private shared: { readonly timer: NodeJS.Timeout; batches: number } | null = null;
  private lostWith: ReadModelsLostError | null = null;
  private readonly lostListeners = new Set<(error: Error) => void>();

  constructor(
    readonly db: SqliteDatabase,
    options: SqliteReadModelStoreOptions = {},
  ) {
    this.checkpoints = new SqliteCheckpointStore(db, { eventIds: true });
    this.leases = new SqliteLeaseStore(db);
    this.companies = new ReadModelCompanies(db);
    this.collections = new Collections(db, this.companies, '');
    this.shareCommitMs = options.shareCommitMs ?? 0;
    this.transaction = { begin: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') };
  }

  static open(file: string, options: SqliteReadModelStoreOptions = {}): SqliteReadModelStore {
    return new SqliteReadModelStore(openReadModelDatabase(file), options);
  }

  /**
   * Calls `listener` when batches applied in a shared transaction are lost: its
   * commit failed, or SQLite rolled it back (I/O error, disk full). This process's
   * readers have seen them: it must stop, and the projector applies them again from
   * the log at the next start. Returns what stops it.
   */
  onLost(listener: (error: Error) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  /** Binds a projection to its table, creating it (or laying it out again) right away. */
  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    return this.collections.collection(projection);
  }

  async init(): Promise<void> {}

  async readModelsToBuild(): Promise<readonly string[]> {
    return this.db.prepare<[], { name: string }>('SELECT name FROM read_models_to_build ORDER BY name').all().map((row) => row.name);
  }

  async applyBatch(
    collections: readonly DocumentCollection<ReadModelDocument>[],
    events: readonly RecordedEvent[],
    checkpoint: string,
  ): Promise<void> {
    if (this.lostWith) throw this.lostWith;
    const own = ownCollections(this.db, collections);
    const apply = () => {
      // Events at or before the stored checkpoint were applied by another process (or a replay swapped
      // in past them): skipping them keeps the checkpoint from moving back.
      const stored = this.checkpoints.loadNow(checkpoint);
      const fresh = stored === null ? events : events.filter((event) => comparePositions(event.position, stored) > 0);
      if (fresh.length === 0) return;
      for (const collection of own) collection.applyInTransaction(fresh);
      const last = fresh[fresh.length - 1]!;
      this.checkpoints.saveNow(checkpoint, last.position, last.id);
    };
    // Not sharing, or inside a transaction of the caller's (which then commits the batch).
    if (this.shareCommitMs <= 0 || (this.shared === null && this.db.inTransaction)) {
      this.companies.write(apply);
      return;
    }
    const shared = this.shareTransaction();
    try {
      // A savepoint inside the shared transaction: a batch that fails is rolled back alone.
      this.companies.write(apply);
      shared.batches += 1;
    } catch (error) {
      // SQLite rolled the whole transaction back (an I/O error, a full disk): the batches before are gone too.
      if (!this.db.inTransaction) this.endShared(error);
      throw error;
    }
  }

  /**
   * The open shared transaction, else a new one (BEGIN IMMEDIATE) that commits in
   * `shareCommitMs`. A shared transaction that vanished (SQLite rolled it back
   * between batches) loses its batches.
   */
  private shareTransaction(): { batches: number } {
    if (this.shared && !this.db.inTransaction) this.endShared(new Error('the shared transaction was rolled back'));
    if (this.lostWith) throw this.lostWith;
    if (this.shared) return this.shared;
    this.transaction.begin.run();
    const timer = setTimeout(() => this.commitShared(), this.shareCommitMs);
    // A stop commits it (close); the timer alone keeps no process alive.
    timer.unref();
    this.shared = { timer, batches: 0 };
    return this.shared;
  }

  /** Commits the batches applied since the shared transaction began (at its time, and at close). */
  commitShared(): void {
    const shared = this.shared;
    if (!shared) return;
    if (!this.db.inTransaction) {
      this.endShared(new Error('the shared transaction was rolled back'));
      return;
    }
    try {
      this.transaction.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.transaction.rollback.run();
      this.endShared(error);
      return;
    }
    clearTimeout(shared.timer);
    this.shared = null;
    this.companies.transactionCommitted();
  }

  /** The shared transaction ended without its commit: the batches it held are lost (when it held any). */
  private endShared(cause: unknown): void {
    const shared = this.shared;
    if (!shared) return;
    clearTimeout(shared.timer);
    this.shared = null;
    this.companies.transactionRolledBack();
    if (shared.batches === 0) return;
    this.lostWith = new ReadModelsLostError(shared.batches, cause);
    for (const listener of this.lostListeners) listener(this.lostWith);
  }

  /** Drops what an interrupted replay or swap left, then hands out fresh staging tables. */
  async staging(): Promise<StagingReadModels> {
    for (const table of [...tablesEndingIn(this.db, STAGING_SUFFIX), ...tablesEndingIn(this.db, RETIRED_SUFFIX)]) {
      dropInItsOwnTransaction(this.db, table);
    }
    return new SqliteStaging(this.db, this.companies, this.checkpoints);
  }

  /**
   * After an erasure (`ReadModelStore.compact`): every full-text index merged into
   * one segment (FTS5 `optimize`), which drops the fragments of deleted and
   * rewritten documents that a delete only marks, then the write-ahead log copied
   * into the file and emptied (`wal_checkpoint(TRUNCATE)`). The file writes with
   * `secure_delete` on, so what the merge frees is overwritten. Answers whether the
   * log could be emptied (a reader still on an older snapshot keeps it).
   */
  async compact(): Promise<{ readonly walTruncated: boolean }> {
    this.commitShared();
    for (const table of tablesEndingIn(this.db, FTS_SUFFIX)) {
      const fts = quoteName(table);
      this.db.prepare(`INSERT INTO ${fts} (${fts}) VALUES ('optimize')`).run();
    }
    return { walTruncated: truncateWal(this.db) };
  }

  /** `compact`, with the file rebuilt (`VACUUM`) between the merge and the emptied log: no free page is left to hold anything. */
  async vacuum(): Promise<{ readonly walTruncated: boolean }> {
    await this.compact();
    this.db.exec('VACUUM');
    return { walTruncated: truncateWal(this.db) };
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    this.commitShared();
    this.db.close();
  }
}

export interface SqliteReadModelStoreOptions {
  /**
   * The projections' batches applied within this many milliseconds share one
   * commit (default 0: each batch commits). Reads through this store (this
   * process's API) see a batch as soon as it is applied; other processes on the
   * file see it at the commit. For a process that runs both the API and the
   * projections, the only reader that must see its writes at once.
   */
  readonly shareCommitMs?: number;
}

/** Batches applied in a shared transaction were lost: its commit failed, or SQLite rolled it back. */
export class ReadModelsLostError extends Error {
  constructor(
    readonly batches: number,
    override readonly cause: unknown,
  ) {
    super(
      `the read models lost ${batches} applied batch${batches === 1 ? '' : 'es'} before their commit ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); the projector applies them again from the log at the next start`,
    );
    this.name = 'ReadModelsLostError';
  }
}
