import { applyThenCheckpoint } from '../../application/applyThenCheckpoint.js';
import { serializedView } from '../../application/documentView.js';
import {
  MongoBulkWriteError,
  MongoClient,
  type AnyBulkWriteOperation,
  type Collection,
  type Db,
  type Document,
  type IndexDescription,
} from 'mongodb';
import type { CheckpointStore } from '../../application/ports/CheckpointStore.js';
import type { LeaseStore } from '../../application/ports/LeaseStore.js';
import type { RecordedEvent } from '../../application/ports/EventStore.js';
import type {
  DocumentCollection,
  DocumentView,
  ListQuery,
  Page,
  Projection,
  ProjectionTarget,
  ReadModelDocument,
  ReadModelStore,
  ReplayedCheckpoint,
  StagingReadModels,
} from '../../application/ports/ReadModelStore.js';
import { comparePositions, isPosition, type Position } from '../../shared/Position.js';
import { MongoLeaseStore } from './MongoLeaseStore.js';
import { toMongoFilter } from './toMongoFilter.js';

/**
 * Internal field: the position of the event that created the document, left-padded
 * with zeros so that MongoDB's string order is the numeric order (positions may
 * exceed 2^53 and never become numbers or bigints in a document). List order sorts
 * on it alone.
 */
const CREATED = '_created';
const CREATED_WIDTH = 40;
const DUPLICATE_KEY = 11000;
/** The collection of subscription checkpoints, beside the read models. */
const CHECKPOINTS = 'checkpoints';
/** The collection of exclusive leases (the projector's), beside the read models. */
const LEASES = 'leases';
/** Suffix of the collections a replay builds before they are renamed over the live ones. */
const STAGING_SUFFIX = '__replay';

/** What a read-model document looks like in MongoDB. */
interface StoredDocument extends Document {
  /** `<companyId>:<id>` (see `documentKey`). */
  _id: string;
  [CREATED]: string;
  companyId: string;
}

interface StoredCheckpoint {
  _id: string;
  position: string;
  /** The id of the event at `position` (absent: saved without it, as by an older release). */
  eventId?: string | null;
}

/** Keeps the adapter's own fields out of every document handed back. */
const HIDDEN_FIELDS = { _id: 0, [CREATED]: 0 } as const;

/** Largest `$in` list sent in one query (keeps every command far below 16 MB). */
const IN_CHUNK = 1000;

/**
 * The document's `_id`: the company, then the id. A `%` or `:` in the company id is
 * percent-encoded, so the first `:` always ends the company and two different
 * (company, id) pairs never share a key.
 */
const documentKey = (companyId: string, id: string): string =>
  `${companyId.replace(/%/g, '%25').replace(/:/g, '%3A')}:${id}`;

/**
 * The creation key of a document created by the event at `position`. When one event
 * creates several documents of a read model, the second and later ones get a
 * suffix (`.000001`, …) so that keys stay unique and keep the order in which they
 * were created, as the memory adapter lists them; a key is a prefix of, so sorts
 * before, its suffixed siblings, and all of them before the next position.
 */
const creationKey = (position: Position, ordinal = 0): string => {
  if (!isPosition(position) || position.length > CREATED_WIDTH) {
    throw new Error(`Cannot order by position ${JSON.stringify(position)}`);
  }
  const key = position.padStart(CREATED_WIDTH, '0');
  return ordinal === 0 ? key : `${key}.${String(ordinal).padStart(6, '0')}`;
};

/** Value at a dotted path, through plain objects only (as the memory adapter reads it). */
const valueAt = (doc: object, path: string): unknown => {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
};

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/** Splits a stored document into the projection's document and its creation key. */
const fromStored = <D extends ReadModelDocument>(stored: Document): { doc: D; created: string | null } => {
  const { _id: _ignored, [CREATED]: created, ...doc } = stored;
  return { doc: doc as D, created: typeof created === 'string' ? created : null };
};

/** One document while a batch is folded: as loaded, and as it is now. */
interface Slot<D> {
  readonly key: string;
  readonly companyId: string;
  readonly id: string;
  /** As stored before the batch (null: absent). */
  readonly loaded: D | null;
  /** As folded so far (null: absent or deleted). */
  doc: D | null;
  /** Creation key of `doc`. */
  created: string | null;
}

class MongoDocumentCollection<D extends ReadModelDocument> implements DocumentCollection<D> {
  constructor(
    readonly projection: Projection<D>,
    private readonly documents: Collection<StoredDocument>,
  ) {}

  async get(companyId: string, id: string): Promise<D | null> {
    const found = await this.documents.findOne(
      { _id: documentKey(companyId, id), companyId },
      { projection: HIDDEN_FIELDS },
    );
    return found === null ? null : (found as unknown as D);
  }

  async getView(companyId: string, id: string): Promise<DocumentView<D> | null> {
    return serializedView(this.projection, await this.get(companyId, id));
  }

  async list(query: ListQuery): Promise<Page<D>> {
    const filter = toMongoFilter(query.companyId, query.filters);
    const limit = Math.floor(query.limit);
    const skip = Math.max(0, (Math.floor(query.page) - 1) * limit);
    const [items, total] = await Promise.all([
      // A MongoDB limit of 0 means "no limit": ask for nothing instead.
      limit > 0
        ? this.documents
            .find(filter, {
              projection: HIDDEN_FIELDS,
              sort: { [CREATED]: query.order === 'asc' ? 1 : -1 },
              skip,
              limit,
            })
            .toArray()
        : Promise.resolve([]),
      query.withTotal === false ? Promise.resolve(null) : this.documents.countDocuments(filter),
    ]);
    return { items: items as unknown as D[], total: total ?? skip + items.length };
  }

  async listCreatedAfter(companyId: string, after: Position | null, limit: number): Promise<D[]> {
    const n = Math.floor(limit);
    if (n <= 0) return [];
    const filter: Document = { companyId };
    if (after !== null) {
      // A position longer than a creation key is after every document there is.
      if (after.length > CREATED_WIDTH) return [];
      // Every key of `after` (`p`, `p.000001`, …) sorts before `p/` ('/' follows '.'),
      // and every key of a later position after it: one range on the company's creation index.
      filter[CREATED] = { $gt: `${creationKey(after)}/` };
    }
    const found = await this.documents.find(filter, { projection: HIDDEN_FIELDS, sort: { [CREATED]: 1 }, limit: n }).toArray();
    return found as unknown as D[];
  }

  async apply(events: readonly RecordedEvent[]): Promise<void> {
    const { projection } = this;
    const planned = events
      .filter((event) => projection.eventTypes.has(event.type))
      .map((event) => ({ event, targets: projection.targets(event) }));
    if (planned.length === 0) return;

    const slots = await this.load(planned.flatMap((p) => p.targets));

    const slotFor = (companyId: string, id: string): Slot<D> => {
      const key = documentKey(companyId, id);
      let slot = slots.get(key);
      if (!slot) {
        slot = { key, companyId, id, loaded: null, doc: null, created: null };
        slots.set(key, slot);
      }
      return slot;
    };

    // Fold in log order, in memory. A where-target sees the documents as they are at
    // this point of the batch (including ones created earlier in it).
    for (const { event, targets } of planned) {
      const applied = new Set<Slot<D>>();
      let createdByEvent = 0;
      for (const target of targets) {
        let matched: Slot<D>[];
        if (target.kind === 'id') {
          matched = [slotFor(target.companyId, target.id)];
        } else {
          matched = [];
          for (const slot of slots.values()) {
            const doc = slot.doc;
            if (doc !== null && doc.companyId === target.companyId && valueAt(doc, target.field) === target.value) {
              matched.push(slot);
            }
          }
        }
        for (const slot of matched) {
          // An event is folded at most once into a document, whatever number of its targets match.
          if (applied.has(slot)) continue;
          applied.add(slot);
          if (this.fold(slot, event, createdByEvent)) createdByEvent++;
        }
      }
    }

    await this.write(slots);
  }

  /**
   * Writes every changed document in one bulkWrite. Each write is conditional on the
   * document still being as it was loaded (absent for an insert, same `position`
   * for a replace or delete), so a second runner working on the same read model can
   * never overwrite a newer document with an older one: the loser's batch fails and
   * is folded again from the stored documents (skipping what is already applied).
   */
  private async write(slots: ReadonlyMap<string, Slot<D>>): Promise<void> {
    const operations: AnyBulkWriteOperation<StoredDocument>[] = [];
    for (const slot of slots.values()) {
      const { loaded, doc } = slot;
      if (doc === loaded) continue;
      if (doc === null) {
        if (loaded !== null) operations.push({ deleteOne: { filter: { _id: slot.key, position: loaded.position } } });
        continue;
      }
      const stored = { ...doc, [CREATED]: slot.created ?? creationKey(doc.position) };
      operations.push(
        loaded === null
          ? { insertOne: { document: { ...stored, _id: slot.key } } }
          : { replaceOne: { filter: { _id: slot.key, position: loaded.position }, replacement: stored } },
      );
    }
    if (operations.length === 0) return;

    const conflict = (cause: unknown) =>
      new Error(`Read model ${this.projection.name} was changed by another writer during a batch; fold it again`, {
        cause,
      });
    let result: { insertedCount: number; matchedCount: number; deletedCount: number };
    try {
      // Each operation touches its own document, so their order does not matter.
      result = await this.documents.bulkWrite(operations, { ordered: false });
    } catch (error) {
      const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
      if (writeErrors.length > 0 && writeErrors.every((e) => e.code === DUPLICATE_KEY)) throw conflict(error);
      throw error;
    }
    if (result.insertedCount + result.matchedCount + result.deletedCount !== operations.length) {
      throw conflict(result);
    }
  }

  /**
   * Applies one event to one document unless the document already holds it or a
   * later one. True when it created the document (the event's `ordinal`-th creation).
   */
  private fold(slot: Slot<D>, event: RecordedEvent, ordinal: number): boolean {
    const doc = slot.doc;
    if (doc !== null && comparePositions(doc.position, event.position) >= 0) return false;
    const next = this.projection.evolve(doc, event);
    if (next === doc) return false;
    if (next !== null && (next.id !== slot.id || next.companyId !== slot.companyId)) {
      throw new Error(
        `Projection ${this.projection.name} moved document ${slot.companyId}/${slot.id} to ${next.companyId}/${next.id}`,
      );
    }
    slot.doc = next;
    if (doc === null && next !== null) {
      slot.created = creationKey(event.position, ordinal);
      return true;
    }
    return false;
  }

  /**
   * Loads every stored document the targets may touch: by key for id-targets, and
   * one query per (company, field) for where-targets, all in parallel.
   */
  private async load(targets: readonly ProjectionTarget[]): Promise<Map<string, Slot<D>>> {
    const keys = new Set<string>();
    const wheres = new Map<string, { companyId: string; field: string; values: Set<string> }>();
    for (const target of targets) {
      if (target.kind === 'id') {
        keys.add(documentKey(target.companyId, target.id));
      } else {
        const group = JSON.stringify([target.companyId, target.field]);
        let where = wheres.get(group);
        if (!where) wheres.set(group, (where = { companyId: target.companyId, field: target.field, values: new Set() }));
        where.values.add(target.value);
      }
    }

    const queries: Document[] = [];
    for (const chunk of chunks([...keys], IN_CHUNK)) queries.push({ _id: { $in: chunk } });
    for (const { companyId, field, values } of wheres.values()) {
      if (field === '' || field.startsWith('$')) throw new Error(`Invalid where-target field: ${JSON.stringify(field)}`);
      for (const chunk of chunks([...values], IN_CHUNK)) queries.push({ companyId, [field]: { $in: chunk } });
    }
    const results = await Promise.all(queries.map((query) => this.documents.find(query).toArray()));

    const slots = new Map<string, Slot<D>>();
    for (const stored of results.flat()) {
      if (slots.has(stored._id)) continue;
      const { doc, created } = fromStored<D>(stored);
      slots.set(stored._id, {
        key: stored._id,
        companyId: doc.companyId,
        id: doc.id,
        loaded: doc,
        doc,
        created: created ?? creationKey(doc.position),
      });
    }
    return slots;
  }

  async clear(): Promise<void> {
    await this.documents.deleteMany({});
  }

  async *scan(): AsyncIterable<D> {
    for await (const stored of this.documents.find({}, { projection: HIDDEN_FIELDS })) yield stored as unknown as D;
  }

  /**
   * The indexes list queries and where-targets rely on: the company's documents in
   * creation order, and each declared field list after the company. The creation
   * key closes every index (equality, then sort), so a list filtered by equality on
   * the declared fields reads its page in order without sorting; where-targets use
   * the same indexes by their prefix.
   */
  indexes(): IndexDescription[] {
    const specs: IndexDescription[] = [{ key: { companyId: 1, [CREATED]: 1 } }];
    for (const fields of this.projection.indexes) {
      const key: Record<string, 1> = { companyId: 1 };
      for (const field of fields) key[field] = 1;
      key[CREATED] = 1;
      specs.push({ key });
    }
    // The same key twice would make createIndexes fail; keep the first.
    const seen = new Set<string>();
    return specs.filter((spec) => {
      const signature = JSON.stringify(Object.keys(spec.key));
      if (seen.has(signature)) return false;
      seen.add(signature);
      return true;
    });
  }
}

class MongoCheckpointStore implements CheckpointStore {
  constructor(private readonly checkpoints: Collection<StoredCheckpoint>) {}

  async load(name: string): Promise<Position | null> {
    const found = await this.checkpoints.findOne({ _id: name });
    return found?.position ?? null;
  }

  async save(name: string, position: Position, eventId: string | null = null): Promise<void> {
    await this.checkpoints.updateOne({ _id: name }, { $set: { position, eventId } }, { upsert: true });
  }

  async loadEventId(name: string): Promise<string | null> {
    const found = await this.checkpoints.findOne({ _id: name });
    return found?.eventId ?? null;
  }

  async reset(name: string): Promise<void> {
    await this.checkpoints.deleteOne({ _id: name });
  }
}

/**
 * A replay's collections: `<name>__replay` beside each live `<name>`, indexed
 * like it. API instances keep reading the live collections until `swap` renames
 * each staged one over its live one (`renameCollection` with `dropTarget`: one
 * atomic step per collection, not across collections), then saves the
 * checkpoint at the replayed position.
 */
class MongoStaging implements StagingReadModels {
  private readonly staged = new Map<string, MongoDocumentCollection<ReadModelDocument>>();
  private done = false;

  constructor(
    private readonly db: Db,
    private readonly checkpoints: CheckpointStore,
  ) {}

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    if (this.done) throw new Error('This staging was already swapped in or discarded');
    if (projection.name === CHECKPOINTS || projection.name === LEASES) throw new Error(`A read model cannot be named ${projection.name}`);
    const existing = this.staged.get(projection.name);
    if (existing) {
      if (existing.projection !== (projection as unknown)) {
        throw new Error(`Collection ${projection.name} is already bound to another projection`);
      }
      return existing as unknown as DocumentCollection<D>;
    }
    const created = new MongoDocumentCollection(projection, this.db.collection<StoredDocument>(projection.name + STAGING_SUFFIX));
    this.staged.set(projection.name, created as unknown as MongoDocumentCollection<ReadModelDocument>);
    return created;
  }

  /** Creates each staged collection with its indexes (so an empty one exists to be renamed). */
  async init(): Promise<void> {
    await Promise.all(
      [...this.staged.values()].map((collection) =>
        this.db.collection(collection.projection.name + STAGING_SUFFIX).createIndexes(collection.indexes()),
      ),
    );
  }

  async applyBatch(collections: readonly DocumentCollection<ReadModelDocument>[], events: readonly RecordedEvent[]): Promise<void> {
    for (const collection of collections) await collection.apply(events);
  }

  async swap(checkpoint: ReplayedCheckpoint): Promise<void> {
    if (this.done) throw new Error('This staging was already swapped in or discarded');
    this.done = true;
    await this.init();
    for (const name of this.staged.keys()) {
      await this.db.renameCollection(name + STAGING_SUFFIX, name, { dropTarget: true });
    }
    if (checkpoint.position === null) await this.checkpoints.reset(checkpoint.name);
    else await this.checkpoints.save(checkpoint.name, checkpoint.position, checkpoint.eventId ?? null);
  }

  async discard(): Promise<void> {
    this.done = true;
    await dropStagingCollections(this.db);
  }
}

/** Drops every staging collection, e.g. left by a replay that stopped half-way. */
const dropStagingCollections = async (db: Db): Promise<void> => {
  const leftovers = await db.listCollections({}, { nameOnly: true }).toArray();
  await Promise.all(
    leftovers.filter(({ name }) => name.endsWith(STAGING_SUFFIX)).map(({ name }) => db.collection(name).drop()),
  );
};

/** Read models in MongoDB (production): durable, indexed, shared by every instance. */
export class MongoReadModelStore implements ReadModelStore {
  readonly kind = 'mongodb' as const;
  readonly durable = true;
  readonly checkpoints: CheckpointStore;
  readonly leases: LeaseStore;
  private readonly collections = new Map<string, MongoDocumentCollection<ReadModelDocument>>();

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {
    this.checkpoints = new MongoCheckpointStore(db.collection<StoredCheckpoint>(CHECKPOINTS));
    this.leases = new MongoLeaseStore(db.collection(LEASES));
  }

  static async connect(url: string, dbName: string): Promise<MongoReadModelStore> {
    // ignoreUndefined: an undefined field is left out, as JSON would, instead of stored as null.
    const client = await MongoClient.connect(url, { ignoreUndefined: true, appName: 'chronicle' });
    return new MongoReadModelStore(client, client.db(dbName));
  }

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    if (projection.name === CHECKPOINTS || projection.name === LEASES) throw new Error(`A read model cannot be named ${projection.name}`);
    if (projection.name.endsWith(STAGING_SUFFIX)) throw new Error(`A read model's name cannot end in ${STAGING_SUFFIX}`);
    const existing = this.collections.get(projection.name);
    if (existing) {
      if (existing.projection !== (projection as unknown)) {
        throw new Error(`Collection ${projection.name} is already bound to another projection`);
      }
      return existing as unknown as DocumentCollection<D>;
    }
    const created = new MongoDocumentCollection(projection, this.db.collection<StoredDocument>(projection.name));
    this.collections.set(projection.name, created as unknown as MongoDocumentCollection<ReadModelDocument>);
    return created;
  }

  async init(): Promise<void> {
    // createIndexes is a no-op for indexes that already exist with the same key and name.
    await Promise.all(
      [...this.collections.values()].map((collection) =>
        this.db.collection(collection.projection.name).createIndexes(collection.indexes()),
      ),
    );
  }

  /**
   * Writes the batch's documents, collection by collection, then the checkpoint: not
   * one transaction, but safe to repeat, since each document keeps the position it
   * applied and skips events at or before it. A batch cut off half-way is applied
   * again from the older checkpoint.
   */
  async applyBatch(
    collections: readonly DocumentCollection<ReadModelDocument>[],
    events: readonly RecordedEvent[],
    checkpoint: string,
  ): Promise<void> {
    await applyThenCheckpoint(this.checkpoints, collections, events, checkpoint);
  }

  async staging(): Promise<StagingReadModels> {
    await dropStagingCollections(this.db);
    return new MongoStaging(this.db, this.checkpoints);
  }

  /** The read models' database, for adapters that keep their own collections beside them (rate limits). */
  get database(): Db {
    return this.db;
  }

  /** Drops the whole database (tests). */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
