import type pg from 'pg';
import type { RecordedEvent } from '../../application/ports/EventStore.js';
import type {
  DocumentCollection,
  DocumentView,
  ListQuery,
  Page,
  Projection,
  ReadModelDocument,
} from '../../application/ports/ReadModelStore.js';
import { serializedView, viewFieldOf } from '../../application/ports/documentView.js';
import { isPosition, type Position } from '../../shared/Position.js';
import { BatchFold, plannedEvents, type FoldSlot, type PlannedEvent } from '../readModels/batchFold.js';
import { CHANGES_KEY, changeToken, countKeyOf, countKeysOf, valueAt, type ReadModelLayout } from '../readModels/readModelLayout.js';
import {
  cutToIndexedChars,
  indexedText,
  searchColumns,
  storedCountKey,
  tableNames,
  typedString,
  typedText,
  type TableNames,
} from './postgresReadModelLayout.js';
import type { ReadModelDatabase } from './readModelSchema.js';
import type { ReadModelCompanyKeys } from './ReadModelCompanyKeys.js';
import { searchedText, storableJson, storableText } from './storableText.js';
import { SqlParams, toPostgresFilter } from './toPostgresFilter.js';
import { preparedReadQuery, readQuery } from './postgresPool.js';
import { withReadModelTransaction } from './withReadModelTransaction.js';
import type { Statement } from './inlineStatement.js';

/** A write transaction of the store: its connection, and the company keys it used (kept once it commits). */
export interface ReadModelWrite {
  readonly client: pg.ClientBase;
  readonly companyKeys: Map<string, number>;
}

/** What every collection of a store shares. */
export interface CollectionContext {
  readonly pool: pg.Pool;
  readonly database: ReadModelDatabase;
  readonly keys: ReadModelCompanyKeys;
}

interface StoredRow {
  seq: string;
  company: number;
  id: string;
  created: string;
  json: string;
  [searched: `s${number}`]: string | null;
}

/** A document of the batch being folded (see `BatchFold`), with what writing it needs. */
interface Slot<D extends ReadModelDocument> extends FoldSlot<D, Position> {
  readonly company: number;
  /** Its row (null: not stored). */
  readonly seq: string | null;
  /** Searched texts as stored (null: not stored). */
  readonly storedTexts: readonly (string | null)[] | null;
  /** Keys it is counted under as stored (see `countKeysOf`). */
  readonly storedCounts: readonly string[] | null;
}

/** The companies the planned events' targets name. */
export const companiesOf = (planned: readonly PlannedEvent[]): Set<string> => new Set(planned.flatMap((p) => p.targets.map((target) => target.companyId)));

/** Rows read per statement while scanning. */
const SCAN_PAGE = 500;
/** Totals kept by `countedTotal` at most (per read model and process). */
const TOTALS_KEPT = 1_000;

/** A document as jsonb takes it, and its exact text when jsonb cannot hold it (see storableText.ts). */
const storedForms = (doc: object): { doc: string; raw: string | null } => {
  const json = JSON.stringify(doc);
  const storable = storableJson(json);
  return storable === json ? { doc: json, raw: null } : { doc: storable, raw: json };
};

/** The key of a list's total in the counts (see `countKeyOf`), as stored. */
const storedCountKeyOf = (layout: ReadModelLayout, filters: ListQuery['filters']): string | null => {
  const key = countKeyOf(layout, filters);
  return key === null ? null : storedCountKey(key);
};

/** How the total of a list is found. */
type TotalMode = 'none' | 'kept' | 'counted' | 'token';

interface ListRow {
  items: unknown[];
  total?: string | null;
  token?: string | null;
}

/**
 * One read model in one PostgreSQL table (see `createReadModelTable`). Reads are
 * single statements on the pool; writes run inside a transaction of the store
 * (`applyIn`), so the documents, their counts and the checkpoint commit together.
 */
export class PostgresDocumentCollection<D extends ReadModelDocument> implements DocumentCollection<D> {
  readonly names: TableNames;
  private readonly texts: (doc: object) => (string | null)[];
  private readonly countKeys: (doc: object) => string[];
  /** Totals counted by queries, with the change token of their company they hold for (see `list`). */
  private readonly totals = new Map<string, { n: number; token: string }>();
  private prepared: Promise<void> | null = null;

  constructor(
    readonly projection: Projection<D>,
    readonly context: CollectionContext,
    /** The table: the projection's name, or its staging table. */
    readonly table: string,
    readonly layout: ReadModelLayout,
    /** Makes the table ready (creates it, lays it out again): once, before the first use. */
    private readonly prepare: () => Promise<void>,
  ) {
    this.names = tableNames(context.database.schema, table);
    this.texts = (doc) => layout.search.map((field) => searchedText(valueAt(doc, field)));
    const keysOf = countKeysOf(layout);
    this.countKeys = (doc) => keysOf(doc).map(storedCountKey);
  }

  /** The table, made ready once (a failure is tried again at the next use). */
  ready(): Promise<void> {
    this.prepared ??= this.prepare().catch((error: unknown) => {
      this.prepared = null;
      throw error;
    });
    return this.prepared;
  }

  private async storedJson(companyId: string, id: string): Promise<string | null> {
    await this.ready();
    const company = await this.context.keys.find(companyId);
    if (company === null) return null;
    // Every GET by id: prepared once per connection.
    const { rows } = await preparedReadQuery<{ json: string }>(
      this.context.pool,
      `SELECT coalesce(raw, doc::text) AS json FROM ${this.names.documents} WHERE company = $1 AND id = $2`,
      [company, storableText(id)],
    );
    return rows[0]?.json ?? null;
  }

  async get(companyId: string, id: string): Promise<D | null> {
    const json = await this.storedJson(companyId, id);
    return json === null ? null : (JSON.parse(json) as D);
  }

  async getView(companyId: string, id: string): Promise<DocumentView<D> | null> {
    viewFieldOf(this.projection);
    return serializedView(this.projection, await this.get(companyId, id));
  }

  /**
   * A page and its total in one statement (one snapshot): the page's documents as
   * one JSON array, in index order; the total read from the counts when the
   * filters are `eq` on a kept combination (or none); else counted over the same
   * index range or trigram matches as the page, once per state of the company's
   * documents: the company's change token (beside its counts, written by every
   * transaction that changes one of its documents) is read with every page, and a
   * total counted with the same token is still true.
   */
  async list(query: ListQuery): Promise<Page<D>> {
    await this.ready();
    const company = await this.context.keys.find(query.companyId);
    if (company === null) return { items: [], total: 0 };
    const limit = Math.max(0, Math.floor(query.limit));
    const offset = Math.max(0, (Math.floor(query.page) - 1) * limit);
    const countKey = query.withTotal === false ? null : storedCountKeyOf(this.layout, query.filters);
    const mode: TotalMode = query.withTotal === false ? 'none' : countKey !== null ? 'kept' : 'counted';
    const cacheKey = `${company}\u0000${JSON.stringify(query.filters)}`;
    const known = mode === 'counted' ? this.totals.get(cacheKey) : undefined;
    const run = async (total: TotalMode): Promise<ListRow | null> => {
      const statement = this.listStatement(query, company, limit, offset, total, countKey);
      if (statement === null) return null;
      const { rows } = await readQuery<ListRow>(this.context.pool, statement.text, statement.values);
      return rows[0]!;
    };
    let row = await run(known ? 'token' : mode);
    if (row === null) return { items: [], total: 0 };
    let total: number;
    if (mode === 'none') total = offset + row.items.length;
    else if (mode === 'kept') total = Number(row.total ?? 0);
    else if (known && row.token != null && row.token === known.token) total = known.n;
    else {
      if (known) row = (await run('counted'))!;
      total = Number(row.total ?? 0);
      if (row.token != null) {
        if (this.totals.size >= TOTALS_KEPT) this.totals.clear();
        this.totals.set(cacheKey, { n: total, token: row.token });
      }
    }
    return { items: row.items as D[], total };
  }

  private listStatement(
    query: ListQuery,
    company: number,
    limit: number,
    offset: number,
    total: TotalMode,
    countKey: string | null,
  ): { text: string; values: unknown[] } | null {
    const params = new SqlParams();
    const companyParam = params.add(company);
    const where = toPostgresFilter(this.layout, companyParam, query.filters, params, this.context.database);
    if (where === null) return null;
    const { documents, counts } = this.names;
    const order = query.order === 'asc' ? 'ASC' : 'DESC';
    const columns: string[] = [];
    if (limit > 0) {
      // The page in index order; only the page's documents are rendered, as one JSON array.
      const page =
        `SELECT t.created, t.seq, t.doc, t.raw FROM ${documents} AS t WHERE ${where} ` +
        `ORDER BY t.created ${order}, t.seq ${order} LIMIT ${params.add(limit)} OFFSET ${params.add(offset)}`;
      columns.push(
        `(SELECT coalesce(json_agg(coalesce(p.raw::json, p.doc::json) ORDER BY p.created ${order}, p.seq ${order}), '[]'::json) FROM (${page}) AS p) AS items`,
      );
    } else {
      columns.push(`'[]'::json AS items`);
    }
    const token = `(SELECT n FROM ${counts} WHERE company = ${companyParam} AND key = '${CHANGES_KEY}') AS token`;
    if (total === 'kept') columns.push(`(SELECT n FROM ${counts} WHERE company = ${companyParam} AND key = ${params.add(countKey)}) AS total`);
    if (total === 'counted') columns.push(`(SELECT count(*) FROM ${documents} AS t WHERE ${where}) AS total`, token);
    if (total === 'token') columns.push(token);
    return { text: `SELECT ${columns.join(', ')}`, values: params.values };
  }

  /** What PostgreSQL does for a list query and its total (operators, tests): the lines of EXPLAIN. */
  async explain(query: ListQuery, options: { readonly analyze?: boolean } = {}): Promise<string[]> {
    await this.ready();
    const company = (await this.context.keys.find(query.companyId)) ?? 0;
    const countKey = storedCountKeyOf(this.layout, query.filters);
    const limit = Math.max(0, Math.floor(query.limit));
    const offset = Math.max(0, (Math.floor(query.page) - 1) * limit);
    const statement = this.listStatement(query, company, limit, offset, countKey !== null ? 'kept' : 'counted', countKey);
    if (statement === null) return [];
    const explain = options.analyze === true ? 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)' : 'EXPLAIN (COSTS OFF)';
    const { rows } = await this.context.pool.query<{ 'QUERY PLAN': string }>(`${explain} ${statement.text}`, statement.values);
    return rows.map((row) => row['QUERY PLAN']);
  }

  async listCreatedAfter(companyId: string, after: Position | null, limit: number): Promise<D[]> {
    const n = Math.floor(limit);
    if (n <= 0) return [];
    if (after !== null && !isPosition(after)) throw new Error(`Not a log position: ${JSON.stringify(after)}`);
    await this.ready();
    const company = await this.context.keys.find(companyId);
    if (company === null) return [];
    // Every document created by the event at `after` has exactly that position: `>` leaves them out.
    const { rows } = await readQuery<{ json: string }>(
      this.context.pool,
      `SELECT coalesce(raw, doc::text) AS json FROM ${this.names.documents} WHERE company = $1 AND created > $2::numeric ORDER BY created, seq LIMIT $3`,
      [company, after ?? '-1', n],
    );
    return rows.map((row) => JSON.parse(row.json) as D);
  }

  /** Folds the batch in its own transaction (outside a runner's batch: tests, rebuilds). */
  async apply(events: readonly RecordedEvent[]): Promise<void> {
    await this.ready();
    const companyKeys = new Map<string, number>();
    await withReadModelTransaction(this.context.pool, (client) => this.applyIn({ client, companyKeys }, events));
    this.context.keys.remember(companyKeys);
  }

  /**
   * Folds a batch, in log order, in memory over the documents it touches (loaded
   * once each, locked for the transaction), then writes each changed document
   * once. A where-target sees the documents as they are at that point of the
   * batch: those stored with the value (loaded through the field's index before
   * the fold) and those the batch has touched so far.
   */
  async applyIn(write: ReadModelWrite, events: readonly RecordedEvent[]): Promise<void> {
    const planned = this.planned(events);
    if (planned.length === 0) return;
    await this.ready();
    const keys = await this.context.keys.assign(write.client, companiesOf(planned));
    for (const [companyId, cid] of keys) write.companyKeys.set(companyId, cid);
    const loaded: pg.QueryResult<StoredRow>[] = [];
    for (const { text, values } of this.loadStatements(planned, keys)) loaded.push(await write.client.query<StoredRow>(text, values as unknown[]));
    for (const { text, values } of this.foldedWrites(planned, keys, loaded)) await write.client.query(text, values as unknown[]);
  }

  /** The events of the batch this read model folds, each with its targets (see `plannedEvents`). */
  planned(events: readonly RecordedEvent[]): PlannedEvent[] {
    return plannedEvents(this.projection, events);
  }

  /**
   * Whether every planned event creates every document it targets (`creates`), so
   * that no stored row can be touched: `foldedWrites` then needs no loads.
   */
  createsOnly(planned: readonly PlannedEvent[]): boolean {
    const { creates } = this.projection;
    return creates !== undefined && planned.every((p) => creates(p.event) && p.targets.every((target) => target.kind === 'id'));
  }

  /**
   * The statements loading, and locking, the stored rows the planned events may
   * touch: by key for id-targets, one per company and field for where-targets.
   * `keys` holds the key of every company they name.
   */
  loadStatements(planned: readonly PlannedEvent[], keys: ReadonlyMap<string, number>): Statement[] {
    const ids = new Map<string, { company: number; id: string }>();
    const wheres = new Map<string, { companyId: string; field: string; values: Set<string> }>();
    for (const target of planned.flatMap((p) => p.targets)) {
      if (target.kind === 'id') {
        ids.set(`${target.companyId}\u0000${target.id}`, { company: keys.get(target.companyId)!, id: storableText(target.id) });
      } else {
        const group = `${target.companyId}\u0000${target.field}`;
        let where = wheres.get(group);
        if (!where) wheres.set(group, (where = { companyId: target.companyId, field: target.field, values: new Set() }));
        where.values.add(typedString(storableText(target.value)));
      }
    }
    const statements: Statement[] = [];
    if (ids.size > 0) {
      const pairs = [...ids.values()];
      statements.push({
        text:
          `SELECT ${this.rowColumns()} FROM ${this.names.documents} AS t JOIN unnest($1::integer[], $2::text[]) AS k (company, id) ` +
          'ON t.company = k.company AND t.id = k.id ORDER BY t.seq FOR UPDATE OF t',
        values: [pairs.map((pair) => pair.company), pairs.map((pair) => pair.id)],
      });
    }
    for (const { companyId, field, values } of wheres.values()) {
      // Through the field's index (its cut text), then the whole text.
      statements.push({
        text:
          `SELECT ${this.rowColumns()} FROM ${this.names.documents} AS t WHERE t.company = $1 ` +
          `AND ${indexedText('t.doc', field)} COLLATE "C" = ANY($2::text[]) AND ${typedText('t.doc', field)} COLLATE "C" = ANY($3::text[]) ORDER BY t.seq FOR UPDATE`,
        values: [keys.get(companyId)!, [...values].map(cutToIndexedChars), [...values]],
      });
    }
    return statements;
  }

  /**
   * Folds the planned events over the rows `loadStatements` loaded (their results, in
   * order), and answers the statements that write what changed.
   */
  foldedWrites(planned: readonly PlannedEvent[], keys: ReadonlyMap<string, number>, loaded: readonly pg.QueryResult[]): Statement[] {
    const byKey = new Map<number, string>([...keys].map(([companyId, cid]) => [cid, companyId]));
    const batch = new BatchFold<D, Position, Slot<D>>(this.projection, (position) => {
      if (!isPosition(position)) throw new Error(`Cannot order by position ${JSON.stringify(position)}`);
      return position;
    });
    for (const row of loaded.flatMap((result) => result.rows as StoredRow[])) {
      const companyId = byKey.get(row.company)!;
      const doc = JSON.parse(row.json) as D;
      if (batch.has(companyId, doc.id)) continue;
      batch.remember({
        companyId,
        company: row.company,
        id: doc.id,
        seq: row.seq,
        storedTexts: this.layout.search.map((_, i) => row[`s${i}`] ?? null),
        storedCounts: this.countKeys(doc),
        doc,
        created: row.created,
        createdOrder: -1,
        changed: false,
      });
    }
    const slotFor = (companyId: string, id: string): Slot<D> =>
      batch.get(companyId, id) ??
      batch.remember({
        companyId,
        company: keys.get(companyId)!,
        id,
        seq: null,
        storedTexts: null,
        storedCounts: null,
        doc: null,
        created: null,
        createdOrder: -1,
        changed: false,
      });
    // The stored documents of the where-targets were loaded with the others, before the fold.
    batch.foldAll(planned, (target) => (target.kind === 'id' ? [slotFor(target.companyId, target.id)] : batch.holding(target)));
    return this.writes(batch.changed());
  }

  private rowColumns(): string {
    return ['t.seq', 't.company', 't.id', 't.created::text AS created', 'coalesce(t.raw, t.doc::text) AS json', ...searchColumns(this.layout).map((c) => `t.${c}`)].join(', ');
  }

  /** Moves the counts, deletes, updates, then inserts (in creation order, so `seq` breaks ties between documents of one event). */
  private writes(changed: readonly Slot<D>[]): Statement[] {
    if (changed.length === 0) return [];
    const statements = this.recount(changed);
    const { documents } = this.names;
    const searched = searchColumns(this.layout);
    const deleted = changed.filter((slot) => slot.doc === null && slot.seq !== null).map((slot) => slot.seq!);
    if (deleted.length > 0) statements.push({ text: `DELETE FROM ${documents} WHERE seq = ANY($1::bigint[])`, values: [deleted] });

    const updated = changed.filter((slot) => slot.doc !== null && slot.seq !== null);
    if (updated.length > 0) {
      const set = ['created', 'doc', 'raw', ...searched].map((column) => `${column} = u.${column}`).join(', ');
      statements.push({
        text: `UPDATE ${documents} AS t SET ${set} FROM unnest($1::bigint[], ${this.contentArrays(2)}) AS u (seq, ${this.contentColumns()}) WHERE t.seq = u.seq`,
        values: [updated.map((slot) => slot.seq!), ...this.contentValues(updated)],
      });
    }

    const inserted = changed.filter((slot) => slot.doc !== null && slot.seq === null).sort((a, b) => a.createdOrder - b.createdOrder);
    if (inserted.length > 0) {
      const columns = `company, id, ${this.contentColumns()}`;
      statements.push({
        text:
          `INSERT INTO ${documents} (${columns}) SELECT ${columns} FROM unnest($1::integer[], $2::text[], ${this.contentArrays(3)}) ` +
          `WITH ORDINALITY AS u (${columns}, n) ORDER BY n`,
        values: [inserted.map((slot) => slot.company), inserted.map((slot) => storableText(slot.id)), ...this.contentValues(inserted)],
      });
    }
    return statements;
  }

  /** The columns a write sets from a document: its creation position, jsonb, exact text, searched texts. */
  private contentColumns(): string {
    return ['created', 'doc', 'raw', ...searchColumns(this.layout)].join(', ');
  }

  /** The placeholders of `contentColumns` as arrays, from `$first` on. */
  private contentArrays(first: number): string {
    const types = ['numeric', 'jsonb', 'text', ...searchColumns(this.layout).map(() => 'text')];
    return types.map((type, i) => `$${first + i}::${type}[]`).join(', ');
  }

  /** The values of `contentColumns`, one array per column, for documents in this order. */
  private contentValues(slots: readonly Slot<D>[]): unknown[][] {
    const forms = slots.map((slot) => storedForms(slot.doc!));
    const texts = slots.map((slot) => this.texts(slot.doc!));
    return [
      slots.map((slot) => slot.created!),
      forms.map((form) => form.doc),
      forms.map((form) => form.raw),
      ...this.layout.search.map((_, i) => texts.map((text) => text[i] ?? null)),
    ];
  }

  /**
   * Moves the counts by what the changed documents were counted under, gives
   * their companies new change tokens, and drops counts that reached zero. Rows in
   * key order, so that two writers lock them in the same order.
   */
  private recount(changed: readonly Slot<D>[]): Statement[] {
    const deltas = new Map<string, { company: number; key: string; n: number }>();
    const move = (company: number, key: string, n: number) => {
      const id = `${company}\u0000${key}`;
      const known = deltas.get(id);
      if (known) known.n += n;
      else deltas.set(id, { company, key, n });
    };
    for (const slot of changed) {
      for (const key of slot.storedCounts ?? []) move(slot.company, key, -1);
      if (slot.doc !== null) for (const key of this.countKeys(slot.doc)) move(slot.company, key, 1);
    }
    const moved = [...deltas.values()].filter((delta) => delta.n !== 0);
    const tokens = [...new Set(changed.map((slot) => slot.company))].map((company) => ({ company, key: CHANGES_KEY, n: changeToken() }));
    const rows = [...moved, ...tokens].sort((a, b) => a.company - b.company || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const { counts } = this.names;
    const statements: Statement[] = [
      {
        text:
          `INSERT INTO ${counts} AS c (company, key, n) SELECT * FROM unnest($1::integer[], $2::text[], $3::bigint[]) ` +
          `ON CONFLICT (company, key) DO UPDATE SET n = CASE WHEN excluded.key = '${CHANGES_KEY}' THEN excluded.n ELSE c.n + excluded.n END`,
        values: [rows.map((row) => row.company), rows.map((row) => row.key), rows.map((row) => row.n)],
      },
    ];
    const fallen = moved.filter((delta) => delta.n < 0);
    if (fallen.length > 0) {
      statements.push({
        text: `DELETE FROM ${counts} AS c USING unnest($1::integer[], $2::text[]) AS f (company, key) WHERE c.company = f.company AND c.key = f.key AND c.n = 0`,
        values: [fallen.map((row) => row.company), fallen.map((row) => row.key)],
      });
    }
    return statements;
  }

  async clear(): Promise<void> {
    await this.ready();
    await withReadModelTransaction(this.context.pool, async (client) => {
      await client.query(`DELETE FROM ${this.names.documents}`);
      await client.query(`DELETE FROM ${this.names.counts}`);
    });
    this.totals.clear();
  }

  async *scan(): AsyncIterable<D> {
    await this.ready();
    for (let after = '0'; ; ) {
      const { rows } = await readQuery<{ seq: string; json: string }>(
        this.context.pool,
        `SELECT seq, coalesce(raw, doc::text) AS json FROM ${this.names.documents} WHERE seq > $1 ORDER BY seq LIMIT ${SCAN_PAGE}`,
        [after],
      );
      for (const row of rows) yield JSON.parse(row.json) as D;
      if (rows.length < SCAN_PAGE) return;
      after = rows[rows.length - 1]!.seq;
    }
  }
}
