import type { Position } from '../../shared/Position.js';
import type { RecordedEvent } from './EventStore.js';
import type { CheckpointStore } from './CheckpointStore.js';
import type { LeaseStore } from './LeaseStore.js';
import type { Logger } from './Logger.js';

/** Every read-model document belongs to one company and records the last event it applied. */
export interface ReadModelDocument {
  readonly id: string;
  readonly companyId: string;
  /** Log position of the last event applied to this document (idempotency). */
  readonly position: Position;
}

/** Which documents an event touches. */
export type ProjectionTarget =
  /** One document of a company by id. */
  | { readonly kind: 'id'; readonly companyId: string; readonly id: string }
  /** Every document of a company whose `field` (a dotted path) equals `value`. */
  | { readonly kind: 'where'; readonly companyId: string; readonly field: string; readonly value: string };

/**
 * A pure projection: `evolve(doc | null, event) → doc | null` (null deletes) for
 * the event types it handles. The runner never applies an event whose position is
 * not after the document's `position`, so applying an event twice changes nothing.
 */
export interface Projection<D extends ReadModelDocument> {
  /** Collection name; also names the indexes below. */
  readonly name: string;
  readonly eventTypes: ReadonlySet<string>;
  targets(event: RecordedEvent): readonly ProjectionTarget[];
  evolve(doc: D | null, event: RecordedEvent): D | null;
  /**
   * True when the event creates every document it targets: none of them can be
   * stored before the event is applied (a contact's id first appears in its
   * `ContactCreated`). A store may then write them without loading them first
   * (PostgreSQL: a batch of such events in one round trip); it still refuses a
   * document that is stored after all (a unique key), and then applies the batch
   * as any other. Absent: never.
   */
  creates?(event: RecordedEvent): boolean;
  /** Fields a list query filters on, for adapters that build indexes (after companyId). */
  readonly indexes: readonly (readonly string[])[];
  /**
   * Fields that `contains` filters search, in any combination, for adapters that
   * index text (SQLite: a trigram full-text index). A search of other fields still
   * answers the same, by a scan of the company's documents.
   */
  readonly search?: readonly string[];
  /**
   * Combinations of fields that lists filter on with `eq` (exactly these fields),
   * whose totals adapters may keep up to date as documents change, so that such a
   * list reads its total instead of counting its matches (SQLite: a table of counts
   * per read model; the company's total, no filter, is always kept there). A list
   * filtered otherwise still answers the same, counted.
   */
  readonly totals?: readonly (readonly string[])[];
  /**
   * The field holding what a GET of one document answers (`contact`), for
   * `DocumentCollection.getView`. It is the document's last field: adapters that
   * keep documents as JSON text store it last, and hand it out as text.
   */
  readonly view?: string;
}

/** A filter of a typed list query. Field names are dotted paths into the document. */
export type Filter =
  | { readonly op: 'eq'; readonly field: string; readonly value: string | number | boolean | null }
  | { readonly op: 'gt' | 'gte' | 'lt' | 'lte'; readonly field: string; readonly value: string | number }
  /** Case-insensitive literal substring in any of the fields. */
  | { readonly op: 'contains'; readonly fields: readonly string[]; readonly text: string }
  /** The array field holds every one of the values. */
  | { readonly op: 'hasAll'; readonly field: string; readonly values: readonly string[] };

export interface ListQuery {
  readonly companyId: string;
  readonly filters: readonly Filter[];
  /** 1-based. */
  readonly page: number;
  readonly limit: number;
  /** Creation order (the position of the event that created the document). */
  readonly order: 'asc' | 'desc';
  /**
   * False when the caller reads no `total` (a trigger's newest events): an adapter
   * may then skip counting, and `total` is only a lower bound (the documents up to
   * the end of this page). Default true.
   */
  readonly withTotal?: boolean;
}

export interface Page<D> {
  readonly items: readonly D[];
  readonly total: number;
}

/** A document with its view (see `Projection.view`) as JSON text. */
export interface DocumentView<D extends ReadModelDocument> {
  /** The document's fields; the view's may be absent. */
  readonly doc: Partial<D> & ReadModelDocument;
  /** The view, as `JSON.stringify` writes it. */
  readonly json: string;
}

/** One read model's documents. Reads are scoped to a company: other companies' ids are not found. */
export interface DocumentCollection<D extends ReadModelDocument> {
  readonly projection: Projection<D>;
  get(companyId: string, id: string): Promise<D | null>;
  /**
   * A document with its view as JSON text, for a GET that answers the view: an
   * adapter that keeps documents as JSON text (SQLite) slices the view out of it,
   * so the GET neither parses it nor serializes it again. Throws when the
   * projection names no view.
   */
  getView(companyId: string, id: string): Promise<DocumentView<D> | null>;
  list(query: ListQuery): Promise<Page<D>>;
  /**
   * Up to `limit` of a company's documents created by events after `after` (null:
   * from the first), in creation order: a keyset page, for feeds that resume from
   * a log position. It has no total, so it costs the page, not the collection.
   */
  listCreatedAfter(companyId: string, after: Position | null, limit: number): Promise<D[]>;
  /** Folds a batch of events (in log order) into the documents they target. */
  apply(events: readonly RecordedEvent[]): Promise<void>;
  /** Drops every document (before a rebuild). */
  clear(): Promise<void>;
  /** Every document of every company, in no particular order (verification). */
  scan(): AsyncIterable<D>;
}

/** Where a rebuild leaves off: the checkpoint to save once its collections are live. */
export interface ReplayedCheckpoint {
  readonly name: string;
  /** Last log position the rebuilt collections applied (null: the log was empty). */
  readonly position: Position | null;
  /** The id of the event at `position` (a store that keeps it with the checkpoint does). */
  readonly eventId?: string | null;
  /**
   * The checkpoint as the rebuild found it, when known. A store that can read it in
   * the same transaction as the swap (SQLite) refuses to swap, with
   * `CheckpointMovedError`, when it is no longer this: a projector applied events to
   * the live collections meanwhile.
   */
  readonly expected?: Position | null;
}

/** A swap refused because the live checkpoint moved while the staged collections were built. */
export class CheckpointMovedError extends Error {
  override readonly name = 'CheckpointMovedError';
  constructor(
    readonly checkpoint: string,
    readonly expected: Position | null,
    readonly actual: Position | null,
  ) {
    super(`checkpoint ${checkpoint} moved from ${expected ?? 'the start'} to ${actual ?? 'the start'}`);
  }
}

/**
 * Empty collections beside the live ones, for a rebuild from the log while the
 * live collections keep serving (MongoDB: `<name>__replay`). Nothing reads them
 * until `swap` makes them the live ones.
 */
export interface StagingReadModels {
  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D>;
  /** Creates the indexes of every staged collection handed out so far. */
  init(): Promise<void>;
  /** Folds a batch of events (in log order) into every one of `collections`, handed out by this staging (SQLite: in one transaction). */
  applyBatch(collections: readonly DocumentCollection<ReadModelDocument>[], events: readonly RecordedEvent[]): Promise<void>;
  /**
   * Replaces each live collection of a staged projection with its staged one (the
   * old documents are dropped), then saves `checkpoint`, so a runner that resumes
   * from it starts right after what was rebuilt, and the staged read models are
   * no longer `readModelsToBuild`. Live collections of projections that were not
   * staged are left alone.
   */
  swap(checkpoint: ReplayedCheckpoint): Promise<void>;
  /** Drops the staged collections without swapping (an abandoned rebuild). */
  discard(): Promise<void>;
}

export interface ReadModelStore {
  readonly kind: 'memory' | 'mongodb' | 'sqlite' | 'postgres';
  /** True when documents survive a restart (so the projection checkpoint may be kept). */
  readonly durable: boolean;
  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D>;
  /** Checkpoints kept beside the documents, so both move together. */
  readonly checkpoints: CheckpointStore;
  /** Exclusive leases kept beside the documents: the projector's, so that one process writes them. */
  readonly leases: LeaseStore;
  /**
   * Folds a batch of events (in log order) into every one of `collections` (handed
   * out by this store) and saves checkpoint `checkpoint` at the batch's last
   * position. SQLite commits the documents and the checkpoint in one transaction,
   * and skips the events at or before the checkpoint it finds there (another
   * process applied them), so a restart resumes exactly where the documents are.
   * MongoDB writes the documents, then the checkpoint (a batch applied again
   * changes nothing). Memory applies, then keeps the checkpoint in memory.
   */
  applyBatch(
    collections: readonly DocumentCollection<ReadModelDocument>[],
    events: readonly RecordedEvent[],
    checkpoint: string,
  ): Promise<void>;
  /**
   * A store that commits several batches together (SQLite, `shareCommitMs`) calls
   * `listener` when batches its readers have already seen are lost (that commit
   * failed): the process must stop, and the log gives them back at the next start.
   * Returns what stops it. Absent: batches are never lost once applied.
   */
  onLost?(listener: (error: Error) => void): () => void;
  /** Creates indexes for every collection handed out so far. */
  init(): Promise<void>;
  /**
   * The read models created empty beside documents that had already applied the
   * log (a release that adds a read model, started on the read models of an
   * earlier one): they lack every event before the checkpoint, so they must be
   * built from the log before the projector resumes. Kept durably (a crash before
   * the build leaves them listed); a rebuild's swap clears them. Empty for a store
   * whose documents are rebuilt at every start (memory).
   */
  readModelsToBuild(): Promise<readonly string[]>;
  /**
   * Brings documents that an earlier release stored to this release's layout
   * (MongoDB: search keys and totals), for every collection handed out so far.
   * Run by the one process that writes the read models (the projector, under their
   * lease) before it applies the log; readers answer the same meanwhile, the slower
   * way. Absent: nothing to bring up (SQLite lays its tables out again at open).
   */
  upgrade?(logger: Logger): Promise<void>;
  /** Fresh, empty staging collections for a rebuild (any left over by an earlier one are dropped first). */
  staging(): Promise<StagingReadModels>;
  /**
   * What the engine needs, once an erasure's documents are rewritten or deleted,
   * so that no byte of its files keeps the erased values: SQLite merges its
   * full-text indexes and empties its write-ahead log. `walTruncated`: false when a
   * reader kept the log (`chronicle erasures compact` finishes it). Absent: nothing
   * to do at once (MongoDB, PostgreSQL: `chronicle erasures compact`).
   */
  compact?(): Promise<{ readonly walTruncated: boolean }>;
  close(): Promise<void>;
}
