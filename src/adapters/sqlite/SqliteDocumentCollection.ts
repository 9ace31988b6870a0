import type { Statement } from 'better-sqlite3';
import type { RecordedEvent } from '../../application/ports/EventStore.js';
import type {
  DocumentCollection,
  DocumentView,
  ListQuery,
  Page,
  Projection,
  ProjectionTarget,
  ReadModelDocument,
} from '../../application/ports/ReadModelStore.js';
import type { Position } from '../../shared/Position.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';
import { CHANGES_KEY, changeToken, countKeyOf, countKeysOf, valueAt, type ReadModelLayout } from '../readModels/readModelLayout.js';
import { COUNTS_SUFFIX, FTS_SUFFIX, beyondCreationKeys, creationKey, quoteName, textIndexOf, type SearchTexts } from './readModelLayout.js';
import { LOOKUP_COST, fieldValue, toSqliteFilter, type SqliteFilter, type TextStatistics } from './toSqliteFilter.js';
import { BatchFold, plannedEvents, type FoldSlot } from '../readModels/batchFold.js';
import type { ReadModelCompanies } from './ReadModelCompanies.js';
import { documentText, viewOfText } from './documentText.js';
import { viewFieldOf } from '../../application/ports/documentView.js';

interface StoredRow {
  seq: number;
  id: string;
  created: string;
  doc: string;
  [searched: `s${number}`]: string | null;
}

/** The statements of a collection's batch writes (see `applyInTransaction`). */
interface WriteStatements {
  readonly load: Statement;
  readonly insert: Statement;
  readonly update: Statement;
  readonly delete: Statement;
  /** The full-text index's insert and delete (null: nothing searched). */
  readonly index: Statement | null;
  readonly unindex: Statement | null;
  /** The counts: moved by a delta, dropped at zero, the change token set. */
  readonly move: Statement;
  readonly dropEmpty: Statement;
  readonly token: Statement;
}

/** A document of the batch being folded (see `BatchFold`), with what writing it needs. */
interface Slot<D extends ReadModelDocument> extends FoldSlot<D, string> {
  /** The company's key in `read_model_companies`. */
  readonly company: number;
  /** Its row (null: not stored). */
  readonly seq: number | null;
  /** Searched texts as stored. */
  readonly storedTexts: SearchTexts | null;
  /** Keys it is counted under as stored (see `countKeysOf`). */
  readonly storedCounts: readonly string[] | null;
}

/** The lower-cased text of each searched field (JavaScript's `toLowerCase`, as the memory adapter). */
export const searchTextsOf =
  (layout: ReadModelLayout) =>
  (doc: object): SearchTexts =>
    layout.search.map((field) => {
      const value = valueAt(doc, field);
      return typeof value === 'string' ? value.toLowerCase() : null;
    });

const sameTexts = (a: SearchTexts | null, b: SearchTexts): boolean => a !== null && a.every((text, i) => text === b[i]);

/** How long a search plan's estimates are kept (they only choose plans), and how many at most. */
const STATISTICS_TTL_MS = 5 * 60_000;
const STATISTICS_KEPT = 20_000;

/** Totals kept by `countedTotal` at most (per read model and process). */
const TOTALS_KEPT = 1_000;

/** Rows read per statement while scanning (a scan never keeps a statement open across an await). */
const SCAN_PAGE = 500;

/**
 * One read model in one SQLite table (see `readModelLayout.ts`). Reads are plain
 * statements; writes happen only inside a transaction the store opens
 * (`applyInTransaction`), so documents and the checkpoint commit together.
 */
export class SqliteDocumentCollection<D extends ReadModelDocument> implements DocumentCollection<D> {
  private readonly name: string;
  private readonly statements = new Map<string, Statement>();
  private readonly counts: string;
  private readonly texts: (doc: object) => SearchTexts;
  private readonly countKeys: (doc: object) => string[];
  private readonly trigramDocuments = new Map<string, { n: number; atMost: number; at: number }>();
  /** Totals counted by queries, with the change token of their company they hold for (see `countedTotal`). */
  private readonly totals = new Map<string, { n: number; token: number }>();
  private textIndexName: string | null | undefined = undefined;
  private getDoc: Statement | null = null;
  /** The statements a batch writes with, prepared at its first batch (their SQL built once). */
  private writes: WriteStatements | null = null;

  constructor(
    readonly projection: Projection<D>,
    readonly db: SqliteDatabase,
    private readonly companies: ReadModelCompanies,
    /** The table: the projection's name, or its staging table. */
    readonly table: string,
    readonly layout: ReadModelLayout,
  ) {
    this.name = quoteName(table);
    this.counts = quoteName(table + COUNTS_SUFFIX);
    this.texts = searchTextsOf(layout);
    this.countKeys = countKeysOf(layout);
  }

  /** A stored document, parsed, with the keys it is counted under. */
  private parsed(doc: string): { doc: D; storedCounts: string[] } {
    const parsed = JSON.parse(doc) as D;
    return { doc: parsed, storedCounts: this.countKeys(parsed) };
  }

  /** The company's count under a key of the counts (0: none). */
  private counted(company: number, key: string): number {
    const row = this.statement(`SELECT n FROM ${this.counts} WHERE company = ? AND key = ?`).get(company, key) as { n: number } | undefined;
    return row?.n ?? 0;
  }

  /** A prepared statement, cached per SQL text (one per query shape). */
  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  /** A document's stored text (see `documentText`), or null. */
  private storedText(companyId: string, id: string): string | null {
    const company = this.companies.find(companyId);
    if (company === null) return null;
    // The hottest read of all (every GET by id): prepared once, the column's value itself (no row object).
    this.getDoc ??= this.db.prepare(`SELECT doc FROM ${this.name} WHERE company = ? AND id = ?`).pluck();
    return (this.getDoc.get(company, id) as string | undefined) ?? null;
  }

  async get(companyId: string, id: string): Promise<D | null> {
    const text = this.storedText(companyId, id);
    return text === null ? null : (JSON.parse(text) as D);
  }

  async getView(companyId: string, id: string): Promise<DocumentView<D> | null> {
    const view = viewFieldOf(this.projection);
    const text = this.storedText(companyId, id);
    return text === null ? null : viewOfText<D>(text, view);
  }

  /**
   * A page and the total: the total first (read from the counts when the filters
   * are `eq` on a kept combination, or none; else counted over the same index
   * range or full-text matches, once per state of the company's documents:
   * `countedTotal`), then the page's keys (in index order, the scan stopping at
   * the page; or the full-text matches' keys, of which a sorter keeps the page's:
   * whichever `pageFilter` finds cheaper, knowing the total), then only the page's
   * documents. (Counting the matches in the same pass, with `count(*) OVER ()`,
   * made SQLite sort them all: slower than finding them twice.)
   */
  async list(query: ListQuery): Promise<Page<D>> {
    const company = this.companies.find(query.companyId);
    if (company === null) return { items: [], total: 0 };
    const limit = Math.max(0, Math.floor(query.limit));
    const offset = Math.max(0, (Math.floor(query.page) - 1) * limit);
    const countKey = query.withTotal === false ? null : countKeyOf(this.layout, query.filters);
    const order = query.order === 'asc' ? 'ASC' : 'DESC';
    const run = (): Page<D> => {
      const filter = toSqliteFilter(this.table, this.layout, company, query.filters, this.statistics(company), this.textIndex());
      if (filter === null) return { items: [], total: 0 };
      // One read transaction: the page and the total see the same snapshot.
      const read = this.db.transaction(() => {
        const total =
          query.withTotal === false
            ? null
            : countKey !== null
              ? this.counted(company, countKey)
              : this.countedTotal(company, this.countStatement(filter), filter.params);
        const paged = this.pageFilter(filter, company, total, offset + limit);
        const rows =
          limit > 0 && (total === null || offset < total)
            ? (this.pageStatement(paged, order).all(...paged.params, limit, offset) as { doc: string }[])
            : [];
        return { items: rows.map((row) => JSON.parse(row.doc) as D), total: total ?? offset + rows.length };
      });
      return read();
    };
    try {
      return run();
    } catch (error) {
      // A replay swapped the table in (here or in another process): its index of texts has another name.
      if (!(error instanceof Error) || !error.message.startsWith('no such index')) throw error;
      this.forgetTextIndex();
      return run();
    }
  }

  /**
   * Where a page of a search is read from, once its total is known: the
   * full-text candidates (each checked, then all sorted by creation), or the
   * company's documents in creation order (each checked, stopping at the page's
   * end: with the matches spread over them, about `end` × documents / total
   * entries). The latter when it reads fewer entries than the candidates cost;
   * a page of a common text is then as quick as a page of a rare one.
   */
  private pageFilter(filter: SqliteFilter, company: number, total: number | null, end: number): SqliteFilter {
    if (!filter.fullText || total === null) return filter;
    const documents = this.counted(company, countKeyOf(this.layout, [])!);
    const scanned = total === 0 ? 0 : Math.min(documents, (end * documents) / total);
    return scanned <= filter.fullText.candidates * LOOKUP_COST ? filter.fullText.inOrder : filter;
  }

  /**
   * A total SQLite counts (a search, a range): counted once per state of the
   * company's documents, then read again while the company's change token is the
   * one it was counted with (a client paging through a search asks the same total
   * on every page; a poller asks it again and again). Inside the list's read
   * transaction, so the token and the count are of one snapshot.
   */
  private countedTotal(company: number, count: Statement, params: readonly unknown[]): number {
    const token = this.counted(company, CHANGES_KEY);
    const key = `${company}\u0000${count.source}\u0000${JSON.stringify(params)}`;
    const known = this.totals.get(key);
    if (known && token !== 0 && known.token === token) return known.n;
    const { n } = count.get(...params) as { n: number };
    if (token !== 0) {
      if (this.totals.size >= TOTALS_KEPT) this.totals.clear();
      this.totals.set(key, { n, token });
    }
    return n;
  }

  /** The name of the table's index of texts by `seq`, looked up once (and again after a swap). */
  private textIndex(): string | null {
    if (this.layout.search.length === 0) return null;
    if (this.textIndexName === undefined) this.textIndexName = textIndexOf(this.db, this.table);
    return this.textIndexName;
  }

  private forgetTextIndex(): void {
    this.textIndexName = undefined;
    this.statements.clear();
    this.getDoc = null;
    this.writes = null;
  }

  private writeStatements(): WriteStatements {
    if (this.writes) return this.writes;
    const searched = this.layout.search.map((_, i) => `s${i}`);
    const fts = this.layout.search.length > 0 ? quoteName(this.table + FTS_SUFFIX) : null;
    const prepare = (sql: string) => this.db.prepare(sql);
    this.writes = {
      load: prepare(`SELECT ${this.rowColumns()} FROM ${this.name} WHERE company = ? AND id = ?`),
      insert: prepare(
        `INSERT INTO ${this.name} (company, id, created, doc${searched.map((s) => `, ${s}`).join('')}) ` +
          `VALUES (?, ?, ?, ?${searched.map(() => ', ?').join('')})`,
      ),
      update: prepare(`UPDATE ${this.name} SET created = ?, doc = ?${searched.map((s) => `, ${s} = ?`).join('')} WHERE seq = ?`),
      delete: prepare(`DELETE FROM ${this.name} WHERE seq = ?`),
      index: fts ? prepare(`INSERT INTO ${fts} (rowid${searched.map((_, i) => `, c${i}`).join('')}) VALUES (?${searched.map(() => ', ?').join('')})`) : null,
      unindex: fts ? prepare(`DELETE FROM ${fts} WHERE rowid = ?`) : null,
      move: prepare(`INSERT INTO ${this.counts} (company, key, n) VALUES (?, ?, ?) ON CONFLICT (company, key) DO UPDATE SET n = n + excluded.n`),
      dropEmpty: prepare(`DELETE FROM ${this.counts} WHERE company = ? AND key = ? AND n = 0`),
      token: prepare(
        `INSERT INTO ${this.counts} (company, key, n) VALUES (?, '${CHANGES_KEY}', ?) ON CONFLICT (company, key) DO UPDATE SET n = excluded.n`,
      ),
    };
    return this.writes;
  }

  /** The page's keys first, then only its documents (never carried through a sort). */
  private pageStatement(filter: SqliteFilter, order: 'ASC' | 'DESC'): Statement {
    return this.statement(
      `SELECT d.doc FROM (SELECT t.seq, t.created FROM ${filter.from} WHERE ${filter.where} ` +
        `ORDER BY t.created ${order}, t.seq ${order} LIMIT ? OFFSET ?) AS p ` +
        `CROSS JOIN ${this.name} AS d ON d.seq = p.seq ORDER BY p.created ${order}, p.seq ${order}`,
    );
  }

  private countStatement(filter: SqliteFilter): Statement {
    return this.statement(`SELECT count(*) AS n FROM ${filter.from} WHERE ${filter.where}`);
  }

  /** What SQLite does for a list query: the plan of its page and of its total (operators, tests). */
  explain(query: ListQuery): { page: string[]; count: string[] } {
    const company = this.companies.find(query.companyId) ?? 0;
    this.forgetTextIndex();
    const filter = toSqliteFilter(this.table, this.layout, company, query.filters, this.statistics(company), this.textIndex());
    if (filter === null) return { page: [], count: [] };
    const count = this.countStatement(filter);
    const plan = (statement: Statement, params: readonly unknown[]) =>
      (this.db.prepare(`EXPLAIN QUERY PLAN ${statement.source}`).all(...params) as { detail: string }[]).map((row) => row.detail);
    const countKey = countKeyOf(this.layout, query.filters);
    const counted = this.statement(`SELECT n FROM ${this.counts} WHERE company = ? AND key = ?`);
    const total = countKey === null ? (count.get(...filter.params) as { n: number }).n : this.counted(company, countKey);
    const paged = this.pageFilter(filter, company, total, Math.max(1, Math.floor(query.page)) * query.limit);
    return {
      page: plan(this.pageStatement(paged, query.order === 'asc' ? 'ASC' : 'DESC'), [...paged.params, query.limit, 0]),
      count: countKey === null ? plan(count, filter.params) : plan(counted, [company, countKey]),
    };
  }

  /**
   * Estimates for search plans, kept STATISTICS_TTL_MS: how many documents hold a
   * trigram (its full-text matches counted, up to the number that matters); and
   * how many the company has (from the counts).
   */
  private statistics(company: number): TextStatistics {
    const now = Date.now();
    const fresh = (at: number) => now - at < STATISTICS_TTL_MS;
    const keep = <K, V>(cache: Map<K, V>, key: K, value: V): void => {
      if (cache.size >= STATISTICS_KEPT) cache.clear();
      cache.set(key, value);
    };
    return {
      documentsWith: (trigram, atMost) => {
        const known = this.trigramDocuments.get(trigram);
        // A count that stopped at its limit says only "at least": good for a limit no higher.
        if (known && fresh(known.at) && (known.n < known.atMost || atMost <= known.atMost)) return Math.min(known.n, atMost);
        const counted = this.statement(`SELECT count(*) AS n FROM (SELECT 1 FROM ${quoteName(this.table + FTS_SUFFIX)}(?) LIMIT ?)`);
        const { n } = counted.get(`"${trigram.replace(/"/g, '""')}"`, atMost) as { n: number };
        keep(this.trigramDocuments, trigram, { n, atMost, at: now });
        return n;
      },
      companyDocuments: () => this.counted(company, countKeyOf(this.layout, [])!),
    };
  }

  async listCreatedAfter(companyId: string, after: Position | null, limit: number): Promise<D[]> {
    const n = Math.floor(limit);
    if (n <= 0) return [];
    if (after !== null && beyondCreationKeys(after)) return [];
    const company = this.companies.find(companyId);
    if (company === null) return [];
    // Every document created by the event at `after` has exactly its key: `>` leaves them out.
    const rows = this.statement(
      `SELECT doc FROM ${this.name} WHERE company = ? AND created > ? ORDER BY created, seq LIMIT ?`,
    ).all(company, after === null ? '' : creationKey(after), n) as { doc: string }[];
    return rows.map((row) => JSON.parse(row.doc) as D);
  }

  /** Folds the batch in its own write transaction (outside a runner's batch: tests, rebuilds). */
  async apply(events: readonly RecordedEvent[]): Promise<void> {
    this.companies.write(() => this.applyInTransaction(events));
  }

  /**
   * Folds a batch, in log order, in memory over the documents it touches (loaded
   * once each), then writes each changed document once. Must run inside a write
   * transaction. A where-target sees the documents as they are at that point of
   * the batch: those stored with the value (through the field's index), and those
   * the batch has touched so far.
   */
  applyInTransaction(events: readonly RecordedEvent[]): void {
    const planned = plannedEvents(this.projection, events);
    // Most batches hold no event for most read models.
    if (planned.length === 0) return;
    const writes = this.writeStatements();
    const batch = new BatchFold<D, string, Slot<D>>(this.projection, creationKey);
    const fromRow = (companyId: string, company: number, row: StoredRow): Slot<D> =>
      batch.remember({
        companyId,
        company,
        id: row.id,
        seq: row.seq,
        storedTexts: this.layout.search.map((_, i) => row[`s${i}`] ?? null),
        ...this.parsed(row.doc),
        created: row.created,
        createdOrder: -1,
        changed: false,
      });
    const slotFor = (companyId: string, id: string): Slot<D> => {
      const known = batch.get(companyId, id);
      if (known) return known;
      const company = this.companies.key(companyId);
      const row = writes.load.get(company, id) as StoredRow | undefined;
      if (row) return fromRow(companyId, company, row);
      return batch.remember({
        companyId,
        company,
        id,
        seq: null,
        storedTexts: null,
        storedCounts: null,
        doc: null,
        created: null,
        createdOrder: -1,
        changed: false,
      });
    };
    const whereSlots = (target: Extract<ProjectionTarget, { kind: 'where' }>): Slot<D>[] => {
      const company = this.companies.key(target.companyId);
      const rows = this.statement(
        `SELECT ${this.rowColumns('t.')} FROM ${this.name} AS t WHERE t.company = ? AND ${fieldValue(this.layout, target.field)} = ?`,
      ).all(company, target.value) as StoredRow[];
      for (const row of rows) if (!batch.has(target.companyId, row.id)) fromRow(target.companyId, company, row);
      return batch.holding(target);
    };
    batch.foldAll(planned, (target) => (target.kind === 'id' ? [slotFor(target.companyId, target.id)] : whereSlots(target)));
    const changed = batch.changed();
    if (changed.length > 0) this.write(writes, changed);
  }

  private rowColumns(prefix = ''): string {
    return ['seq', 'id', 'created', 'doc', ...this.layout.search.map((_, i) => `s${i}`)].map((c) => prefix + c).join(', ');
  }

  /** Deletes, updates, then inserts (in creation order, so `seq` breaks ties between documents of one event). */
  private write(writes: WriteStatements, changed: readonly Slot<D>[]): void {
    const { index, unindex } = writes;
    const inserts: Slot<D>[] = [];
    this.recount(writes, changed);
    for (const slot of changed) {
      if (slot.doc === null) {
        if (slot.seq === null) continue;
        writes.delete.run(slot.seq);
        unindex?.run(slot.seq);
        continue;
      }
      if (slot.seq === null) {
        inserts.push(slot);
        continue;
      }
      const texts = this.texts(slot.doc);
      writes.update.run(slot.created, documentText(slot.doc, this.projection.view), ...texts, slot.seq);
      if (index && !sameTexts(slot.storedTexts, texts)) {
        unindex!.run(slot.seq);
        index.run(slot.seq, ...texts);
      }
    }
    inserts.sort((a, b) => a.createdOrder - b.createdOrder);
    for (const slot of inserts) {
      const texts = this.texts(slot.doc!);
      const { lastInsertRowid } = writes.insert.run(slot.company, slot.id, slot.created, documentText(slot.doc!, this.projection.view), ...texts);
      index?.run(lastInsertRowid, ...texts);
    }
  }

  /** Moves the counts by what the changed documents were counted under, and gives their companies new change tokens. */
  private recount(writes: WriteStatements, changed: readonly Slot<D>[]): void {
    const deltas = new Map<number, Map<string, number>>();
    for (const slot of changed) {
      let byKey = deltas.get(slot.company);
      if (!byKey) deltas.set(slot.company, (byKey = new Map()));
      for (const key of slot.storedCounts ?? []) byKey.set(key, (byKey.get(key) ?? 0) - 1);
      if (slot.doc !== null) for (const key of this.countKeys(slot.doc)) byKey.set(key, (byKey.get(key) ?? 0) + 1);
    }
    for (const [company, byKey] of deltas) {
      for (const [key, delta] of byKey) {
        if (delta === 0) continue;
        writes.move.run(company, key, delta);
        if (delta < 0) writes.dropEmpty.run(company, key);
      }
      writes.token.run(company, changeToken());
    }
  }

  async clear(): Promise<void> {
    this.companies.write(() => {
      this.db.exec(`DELETE FROM ${this.name}`);
      this.db.exec(`DELETE FROM ${this.counts}`);
      if (this.layout.search.length > 0) {
        const fts = quoteName(this.table + FTS_SUFFIX);
        this.db.exec(`INSERT INTO ${fts} (${fts}) VALUES ('delete-all')`);
      }
    });
  }

  async *scan(): AsyncIterable<D> {
    const page = this.statement(`SELECT seq, doc FROM ${this.name} WHERE seq > ? ORDER BY seq LIMIT ?`);
    for (let after = 0; ; ) {
      const rows = page.all(after, SCAN_PAGE) as { seq: number; doc: string }[];
      for (const row of rows) yield JSON.parse(row.doc) as D;
      if (rows.length < SCAN_PAGE) return;
      after = rows[rows.length - 1]!.seq;
    }
  }
}
