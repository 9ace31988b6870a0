import { randomUUID } from 'node:crypto';
import { serializedView } from '../../application/ports/documentView.js';
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
import { silentLogger, type Logger } from '../../application/ports/Logger.js';
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
import { ALL, comboKey, countChanges, countKeyOfQuery } from './countKeys.js';
import { MongoLeaseStore } from './MongoLeaseStore.js';
import { GRAMS_FIELD, searchKeysOf, textField } from './searchKeys.js';
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
/** Read models created empty beside documents that had applied the log (one document, `to-build`): built before the projector resumes. */
const META = 'read_model_meta';
const TO_BUILD = 'to-build';

interface ReadModelMeta {
  _id: string;
  names: string[];
}

/** Suffix of the collections a replay builds before they are renamed over the live ones. */
const STAGING_SUFFIX = '__replay';
/** Suffix of a read model's collection of per-company totals (`<name>__counts`). */
const COUNTS_SUFFIX = '__counts';
/** The collection that records how each read model's documents are laid out (see `ReadModelLayout`). */
const LAYOUTS = 'readModelLayouts';
/** Of the layout below; a new one makes `upgrade` lay every collection out again. */
const LAYOUT_VERSION = 1;
/** Searched fields a projection may declare (each is `_s<i>` in its documents). */
const MAX_SEARCHED = 16;
/** A collection whose layout is not current is looked at again this often by readers (they fall back meanwhile). */
const LAYOUT_RECHECK_MS = 5_000;
/** The names a read model cannot take: the store's own collections. */
const RESERVED: ReadonlySet<string> = new Set([CHECKPOINTS, LEASES, META, LAYOUTS]);

/** What a read-model document looks like in MongoDB. */
interface StoredDocument extends Document {
  /** `<companyId>:<id>` (see `documentKey`). */
  _id: string;
  [CREATED]: string;
  companyId: string;
}

/** A company's totals of one read model: its count under each key (`countKeys.ts`); `dirty` while a batch changes them. */
interface StoredCounts {
  _id: string;
  n?: Record<string, number>;
  /** Set before a batch writes the company's documents, removed with the batch's changes of the counts. */
  dirty?: string;
}

/**
 * How a read model's documents are laid out, as this release writes them: the
 * search keys of its searched fields (`searchKeys.ts`) and its totals. Recorded per
 * collection once every document has it (a release before this one wrote none), so
 * that readers rely on it only then, and fall back to scanning and counting before.
 */
interface ReadModelLayout {
  readonly version: number;
  readonly search: readonly string[];
  readonly totals: readonly (readonly string[])[];
}

interface StoredLayout extends ReadModelLayout {
  _id: string;
}

const layoutOf = (projection: Projection<ReadModelDocument>): ReadModelLayout => ({
  version: LAYOUT_VERSION,
  search: projection.search ?? [],
  totals: projection.totals ?? [],
});

const sameLayout = (stored: ReadModelLayout | null, wanted: ReadModelLayout): boolean =>
  stored !== null &&
  stored.version === wanted.version &&
  JSON.stringify(stored.search) === JSON.stringify(wanted.search) &&
  JSON.stringify(stored.totals) === JSON.stringify(wanted.totals);

interface StoredCheckpoint {
  _id: string;
  position: string;
  /** The id of the event at `position` (absent: saved without it, as by an older release). */
  eventId?: string | null;
}

/** Every search-key field a document may hold (`searchKeys.ts`). */
const SEARCH_KEY_FIELDS = [GRAMS_FIELD, ...Array.from({ length: MAX_SEARCHED }, (_, i) => textField(i))];
/** Keeps the adapter's own fields out of every document handed back. */
const HIDDEN_FIELDS: Document = Object.fromEntries([['_id', 0], [CREATED, 0], ...SEARCH_KEY_FIELDS.map((field) => [field, 0])]);

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

/** The count key of a combination of `fields` with the `values` a group found (countKeys.ts). */
const comboKeyOf = (fields: readonly string[], values: readonly unknown[]): string => comboKey(fields.map((field, i) => [field, values[i]] as const));

/** Splits a stored document into the projection's document and its creation key. */
const fromStored = <D extends ReadModelDocument>(stored: Document): { doc: D; created: string | null } => {
  const { _id: _ignored, [CREATED]: created, ...doc } = stored;
  for (const field of SEARCH_KEY_FIELDS) delete doc[field];
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
  private readonly search: readonly string[];
  private readonly totals: readonly (readonly string[])[];
  /** Counts left dirty by a batch that failed (or by a process that died) are recounted before the next batch. */
  private countsToRepair = true;

  constructor(
    readonly projection: Projection<D>,
    private readonly documents: Collection<StoredDocument>,
    private readonly counts: Collection<StoredCounts>,
    /** Whether every document has this release's layout (search keys, totals): until then reads scan and count. */
    private readonly layoutReady: () => Promise<boolean>,
  ) {
    this.search = projection.search ?? [];
    this.totals = projection.totals ?? [];
    if (this.search.length > MAX_SEARCHED) throw new Error(`Read model ${projection.name} searches more than ${MAX_SEARCHED} fields`);
  }

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
    const ready = await this.layoutReady();
    const filter = toMongoFilter(query.companyId, query.filters, ready ? this.search : []);
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
      query.withTotal === false ? Promise.resolve(null) : this.total(query, filter, ready),
    ]);
    return { items: items as unknown as D[], total: total ?? skip + items.length };
  }

  /**
   * A list's total: read from the company's kept totals when the list has no filter
   * or filters `eq` on one of the projection's `totals` (and no batch is changing
   * them right now), else counted.
   */
  private async total(query: ListQuery, filter: Document, ready: boolean): Promise<number> {
    const key = ready ? countKeyOfQuery(query.filters, this.totals) : null;
    if (key === null) return this.documents.countDocuments(filter);
    const kept = await this.counts.findOne({ _id: query.companyId });
    if (kept?.dirty !== undefined) return this.documents.countDocuments(filter);
    return kept?.n?.[key] ?? 0;
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
    if (this.countsToRepair) await this.repairCounts();

    // The documents are loaded while the companies' totals are marked as being changed: one round trip.
    const targets = planned.flatMap((p) => p.targets);
    const companies = [...new Set(targets.map((target) => target.companyId))];
    const token = randomUUID();
    const [slots] = await Promise.all([this.load(targets), this.markCounts(companies, token)]);

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

    try {
      await this.write(slots);
      await this.writeCounts(slots, companies, token);
    } catch (error) {
      this.countsToRepair = true;
      throw error;
    }
  }

  /** Marks the companies' totals as being changed by batch `token` (created for a company not counted yet). */
  private async markCounts(companies: readonly string[], token: string): Promise<void> {
    await this.counts.bulkWrite(
      companies.map((company) => ({ updateOne: { filter: { _id: company }, update: { $set: { dirty: token } }, upsert: true } })),
      { ordered: false },
    );
  }

  /** Moves the totals by what the batch changed, and clears the mark it set: one round trip. */
  private async writeCounts(slots: ReadonlyMap<string, Slot<D>>, companies: readonly string[], token: string): Promise<void> {
    const changes = new Map<string, Map<string, number>>(companies.map((company) => [company, new Map()]));
    for (const slot of slots.values()) {
      if (slot.doc === slot.loaded) continue;
      countChanges(slot.loaded, slot.doc, this.totals, changes.get(slot.companyId) ?? changes.set(slot.companyId, new Map()).get(slot.companyId)!);
    }
    const operations: AnyBulkWriteOperation<StoredCounts>[] = [...changes].map(([company, moved]) => {
      const inc = Object.fromEntries([...moved].filter(([, by]) => by !== 0).map(([key, by]) => [`n.${key}`, by]));
      return {
        updateOne: {
          filter: { _id: company, dirty: token },
          update: Object.keys(inc).length > 0 ? { $inc: inc, $unset: { dirty: '' } } : { $unset: { dirty: '' } },
        },
      };
    });
    if (operations.length > 0) await this.counts.bulkWrite(operations, { ordered: false });
  }

  /**
   * Recounts the totals a batch left marked (it failed, or its process died, between
   * marking them and moving them). Only the one writer of the read model (the
   * projector under its lease, or a replay on its own collections) applies batches,
   * so nothing changes the documents meanwhile.
   */
  private async repairCounts(): Promise<void> {
    const marked = await this.counts.find({ dirty: { $exists: true } }, { projection: { _id: 1 } }).toArray();
    if (marked.length > 0) await this.recount(marked.map(({ _id }) => _id));
    this.countsToRepair = false;
  }

  /** Counts the documents of `companies` (all: every company) under every key, and keeps those totals. */
  async recount(companies: readonly string[] | 'all'): Promise<void> {
    const match: Document = companies === 'all' ? {} : { companyId: { $in: [...companies] } };
    const found = new Map<string, Record<string, number>>(companies === 'all' ? [] : companies.map((company) => [company, {}]));
    // All of them: totals of companies left without documents go too (readers count meanwhile: the layout is not ready).
    if (companies === 'all') await this.counts.deleteMany({});
    const counted = (company: string) => found.get(company) ?? found.set(company, {}).get(company)!;
    const groups: { key: (values: unknown[]) => string; by: readonly string[] }[] = [
      { key: () => ALL, by: [] },
      ...this.totals.map((fields) => ({ key: (values: unknown[]) => comboKeyOf(fields, values), by: fields })),
    ];
    await Promise.all(
      groups.map(async ({ key, by }) => {
        const pipeline = [
          { $match: match },
          { $group: { _id: { c: '$companyId', v: by.map((field) => ({ $ifNull: [`$${field}`, null] })) }, n: { $sum: 1 } } },
        ];
        for await (const group of this.documents.aggregate<{ _id: { c: string; v: unknown[] }; n: number }>(pipeline)) {
          counted(group._id.c)[key(group._id.v)] = group.n;
        }
      }),
    );
    for (const chunk of chunks([...found], IN_CHUNK)) {
      await this.counts.bulkWrite(
        chunk.map(([company, n]) => ({ replaceOne: { filter: { _id: company }, replacement: { n }, upsert: true } })),
        { ordered: false },
      );
    }
    this.countsToRepair = false;
  }

  /**
   * Writes this release's search keys into every document that lacks them (or holds
   * another layout's), each only while it is as read (a document a batch changed
   * meanwhile has them already). Answers how many it rewrote.
   */
  async addSearchKeys(): Promise<number> {
    let rewritten = 0;
    let operations: AnyBulkWriteOperation<StoredDocument>[] = [];
    const flush = async () => {
      if (operations.length > 0) await this.documents.bulkWrite(operations, { ordered: false });
      rewritten += operations.length;
      operations = [];
    };
    for await (const stored of this.documents.find({}, { projection: { _id: 1, position: 1, ...Object.fromEntries(this.search.map((field) => [field, 1])) } })) {
      const keys = searchKeysOf(stored, this.search);
      const unset = Object.fromEntries(SEARCH_KEY_FIELDS.filter((field) => !(field in keys)).map((field) => [field, '']));
      operations.push({ updateOne: { filter: { _id: stored._id, position: stored.position }, update: { $set: keys, $unset: unset } } });
      if (operations.length >= IN_CHUNK) await flush();
    }
    await flush();
    return rewritten;
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
      const stored = { ...doc, ...searchKeysOf(doc, this.search), [CREATED]: slot.created ?? creationKey(doc.position) };
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
    await this.counts.deleteMany({});
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
    // The search keys after the company (see searchKeys.ts).
    if (this.search.length > 0) specs.push({ key: { companyId: 1, [GRAMS_FIELD]: 1 } });
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
    private readonly layouts: Collection<StoredLayout>,
  ) {}

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    if (this.done) throw new Error('This staging was already swapped in or discarded');
    checkName(projection.name);
    const existing = this.staged.get(projection.name);
    if (existing) {
      if (existing.projection !== (projection as unknown)) {
        throw new Error(`Collection ${projection.name} is already bound to another projection`);
      }
      return existing as unknown as DocumentCollection<D>;
    }
    // Built by this release from nothing: every document has its layout.
    const created = new MongoDocumentCollection(
      projection,
      this.db.collection<StoredDocument>(projection.name + STAGING_SUFFIX),
      this.db.collection<StoredCounts>(projection.name + COUNTS_SUFFIX + STAGING_SUFFIX),
      async () => true,
    );
    this.staged.set(projection.name, created as unknown as MongoDocumentCollection<ReadModelDocument>);
    return created;
  }

  /** Creates each staged collection with its indexes (so an empty one exists to be renamed). */
  async init(): Promise<void> {
    await Promise.all(
      [...this.staged.values()].map((collection) =>
        createIndexes(this.db, collection.projection.name + STAGING_SUFFIX, collection.projection.name + COUNTS_SUFFIX + STAGING_SUFFIX, collection.indexes()),
      ),
    );
  }

  async applyBatch(collections: readonly DocumentCollection<ReadModelDocument>[], events: readonly RecordedEvent[]): Promise<void> {
    await applyAll(collections, events);
  }

  async swap(checkpoint: ReplayedCheckpoint): Promise<void> {
    if (this.done) throw new Error('This staging was already swapped in or discarded');
    this.done = true;
    await this.init();
    for (const [name, collection] of this.staged) {
      await this.db.renameCollection(name + COUNTS_SUFFIX + STAGING_SUFFIX, name + COUNTS_SUFFIX, { dropTarget: true });
      await this.db.renameCollection(name + STAGING_SUFFIX, name, { dropTarget: true });
      const layout = layoutOf(collection.projection);
      await this.layouts.replaceOne({ _id: name }, layout, { upsert: true });
    }
    if (checkpoint.position === null) await this.checkpoints.reset(checkpoint.name);
    else await this.checkpoints.save(checkpoint.name, checkpoint.position, checkpoint.eventId ?? null);
    await this.db.collection<ReadModelMeta>(META).updateOne({ _id: TO_BUILD }, { $pull: { names: { $in: [...this.staged.keys()] } } });
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

/**
 * Applies a batch to every collection at once, and waits for each before it
 * answers, even when one fails: a retry of the batch must never run beside a write
 * of the attempt before it (a collection's totals are moved under its own mark).
 */
const applyAll = async (collections: readonly DocumentCollection<ReadModelDocument>[], events: readonly RecordedEvent[]): Promise<void> => {
  const settled = await Promise.allSettled(collections.map((collection) => collection.apply(events)));
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
};

/** Refuses a read model's name that the adapter's own collections use. */
const checkName = (name: string): void => {
  if (RESERVED.has(name)) throw new Error(`A read model cannot be named ${name}`);
  if (name.endsWith(STAGING_SUFFIX) || name.endsWith(COUNTS_SUFFIX)) {
    throw new Error(`A read model's name cannot end in ${STAGING_SUFFIX} or ${COUNTS_SUFFIX}`);
  }
};

/** A read model's documents' indexes, and the one of its totals that finds those a batch left marked. */
const createIndexes = async (db: Db, documents: string, counts: string, indexes: IndexDescription[]): Promise<void> => {
  await Promise.all([
    db.collection(documents).createIndexes(indexes),
    db.collection(counts).createIndexes([{ key: { dirty: 1 }, sparse: true }]),
  ]);
};

/**
 * Whether a collection's documents all have this release's layout, as readers ask
 * it: once the recorded layout is current it stays so; until then it is read again
 * at most every few seconds (the projector lays the collection out at its start).
 */
const layoutWatch = (layouts: Collection<StoredLayout>, name: string, wanted: ReadModelLayout): (() => Promise<boolean>) => {
  let current = false;
  let lookedAt = 0;
  let looking: Promise<boolean> | null = null;
  return async () => {
    if (current || Date.now() - lookedAt < LAYOUT_RECHECK_MS) return current;
    looking ??= layouts
      .findOne({ _id: name })
      .then((stored) => (current = sameLayout(stored, wanted)))
      .finally(() => {
        lookedAt = Date.now();
        looking = null;
      });
    return looking;
  };
};

/**
 * Read models in MongoDB (production): durable, indexed, shared by every instance.
 *
 * Besides each read model's collection `<name>`: its per-company totals in
 * `<name>__counts` (kept with each batch), and its layout in `readModelLayouts`
 * (see `ReadModelLayout`). Documents written by a release before the layout was
 * recorded are laid out again by `upgrade`, which the projector runs at its start
 * (under the read models' lease); until then, reads scan and count as before.
 */
export class MongoReadModelStore implements ReadModelStore {
  readonly kind = 'mongodb' as const;
  readonly durable = true;
  readonly checkpoints: CheckpointStore;
  readonly leases: LeaseStore;
  private readonly collections = new Map<string, MongoDocumentCollection<ReadModelDocument>>();
  private readonly layouts: Collection<StoredLayout>;

  private constructor(
    private readonly client: MongoClient | null,
    private readonly db: Db,
  ) {
    this.checkpoints = new MongoCheckpointStore(db.collection<StoredCheckpoint>(CHECKPOINTS));
    this.leases = new MongoLeaseStore(db.collection(LEASES));
    this.layouts = db.collection<StoredLayout>(LAYOUTS);
  }

  /** A store on a database whose client the caller keeps (closing the store closes nothing). */
  static overDatabase(db: Db): MongoReadModelStore {
    return new MongoReadModelStore(null, db);
  }

  static async connect(url: string, dbName: string): Promise<MongoReadModelStore> {
    // ignoreUndefined: an undefined field is left out, as JSON would, instead of stored as null.
    const client = await MongoClient.connect(url, { ignoreUndefined: true, appName: 'chronicle' });
    return new MongoReadModelStore(client, client.db(dbName));
  }

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    checkName(projection.name);
    const existing = this.collections.get(projection.name);
    if (existing) {
      if (existing.projection !== (projection as unknown)) {
        throw new Error(`Collection ${projection.name} is already bound to another projection`);
      }
      return existing as unknown as DocumentCollection<D>;
    }
    const created = new MongoDocumentCollection(
      projection,
      this.db.collection<StoredDocument>(projection.name),
      this.db.collection<StoredCounts>(projection.name + COUNTS_SUFFIX),
      layoutWatch(this.layouts, projection.name, layoutOf(projection as unknown as Projection<ReadModelDocument>)),
    );
    this.collections.set(projection.name, created as unknown as MongoDocumentCollection<ReadModelDocument>);
    return created;
  }

  async init(): Promise<void> {
    // A collection about to be created beside documents that had applied the log lacks what came before:
    // listed to be built, before it exists (a crash between the two leaves it listed, never forgotten).
    const existing = new Set((await this.db.listCollections({}, { nameOnly: true }).toArray()).map(({ name }) => name));
    const created = [...this.collections.keys()].filter((name) => !existing.has(name));
    const applied = (await this.db.collection<StoredCheckpoint>(CHECKPOINTS).countDocuments({}, { limit: 1 })) > 0;
    if (created.length > 0 && applied) {
      await this.db.collection<ReadModelMeta>(META).updateOne({ _id: TO_BUILD }, { $addToSet: { names: { $each: created } } }, { upsert: true });
    }
    // createIndexes is a no-op for indexes that already exist with the same key and name.
    await Promise.all(
      [...this.collections.values()].map(async (collection) => {
        const { name } = collection.projection;
        await createIndexes(this.db, name, name + COUNTS_SUFFIX, collection.indexes());
        // An empty collection has nothing to lay out: it is this release's from its first document.
        const wanted = layoutOf(collection.projection);
        if (sameLayout(await this.layouts.findOne({ _id: name }), wanted)) return;
        if ((await this.db.collection(name).findOne({}, { projection: { _id: 1 } })) === null) {
          await this.layouts.replaceOne({ _id: name }, wanted, { upsert: true });
        }
      }),
    );
  }

  /**
   * Lays out again every collection whose recorded layout is not this release's
   * (documents written before: no search keys, no totals): writes the search keys
   * into each document, counts the totals, then records the layout, after which
   * readers use them. A migration at start rather than a required replay: it runs
   * once, in the projector (the one writer), while API instances keep answering
   * (scanning and counting meanwhile); `chronicle replay` also leaves the layout
   * current.
   */
  async upgrade(logger: Logger = silentLogger): Promise<void> {
    for (const collection of this.collections.values()) {
      const { name } = collection.projection;
      const wanted = layoutOf(collection.projection);
      const stored = await this.layouts.findOne({ _id: name });
      if (sameLayout(stored, wanted)) continue;
      const started = Date.now();
      logger.info({ readModel: name, from: stored ?? 'none', to: wanted }, 'laying out a MongoDB read model for this release (search keys, totals)');
      const rewritten = await collection.addSearchKeys();
      await collection.recount('all');
      await this.layouts.replaceOne({ _id: name }, wanted, { upsert: true });
      logger.info({ readModel: name, documents: rewritten, ms: Date.now() - started }, 'MongoDB read model laid out');
    }
  }

  /**
   * Writes the batch's documents, every collection at once (each in a few round
   * trips: load, write, totals), then the checkpoint: not one transaction, but safe
   * to repeat, since each document keeps the position it applied and skips events
   * at or before it, and totals a batch cut off half-way left marked are counted
   * again. A batch cut off half-way is applied again from the older checkpoint.
   */
  async applyBatch(
    collections: readonly DocumentCollection<ReadModelDocument>[],
    events: readonly RecordedEvent[],
    checkpoint: string,
  ): Promise<void> {
    await applyAll(collections, events);
    const last = events[events.length - 1];
    if (last) await this.checkpoints.save(checkpoint, last.position, last.id);
  }

  async readModelsToBuild(): Promise<readonly string[]> {
    const meta = await this.db.collection<ReadModelMeta>(META).findOne({ _id: TO_BUILD });
    return [...(meta?.names ?? [])].sort();
  }

  async staging(): Promise<StagingReadModels> {
    await dropStagingCollections(this.db);
    return new MongoStaging(this.db, this.checkpoints, this.layouts);
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
    await this.client?.close();
  }
}
