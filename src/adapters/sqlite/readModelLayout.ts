import { randomBytes } from 'node:crypto';
import { isPosition, orderedPositionText, type Position } from '../../shared/Position.js';
import { CHANGES_KEY, changeToken, countKey, countKeysOf, jsonPath, type ReadModelLayout } from '../readModels/readModelLayout.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';

/** Suffix of the full-text table of a read model's table. */
export const FTS_SUFFIX = '__fts';
/** Suffix of the table of counts of a read model's table (see `countKeysOf`). */
export const COUNTS_SUFFIX = '__counts';
/** Suffix of the tables a replay builds. */
export const STAGING_SUFFIX = '__replay';
/** Suffix a live table takes during a swap, until it is dropped after the commit. */
export const RETIRED_SUFFIX = '__old';
/** Suffix of the table a new layout is copied into. */
const RELAYOUT_SUFFIX = '__relayout';
/** Suffix of the name of a table's index of its searched texts by `seq` (the name begins with a random token). */
export const TEXT_INDEX_SUFFIX = '_texts';
/** Tables of the adapter itself, beside the read models. */
export const RESERVED_TABLES = new Set(['checkpoints', 'read_model_tables', 'leases']);

/** A quoted SQL identifier. */
export const quoteName = (name: string): string => {
  if (name.includes('"') || name.includes('\u0000')) throw new Error(`Not a table name: ${JSON.stringify(name)}`);
  return `"${name}"`;
};

/**
 * The SQL value of a field of `doc`, typed so that SQL comparisons mean what the
 * memory adapter's `===`, `<`, `>` on JavaScript values mean: strings are TEXT,
 * numbers INTEGER or REAL, null and missing NULL, true and false the blobs x'01'
 * and x'00', objects and arrays the blob x'02' (so that none of these ever equals a
 * string or a number, and comparing with a string bound can be kept to TEXT and
 * with a number bound to numbers, by SQLite's type order NULL < numbers < TEXT < BLOB).
 */
export const typedField = (doc: string, field: string): string => {
  const path = `'${jsonPath(field)}'`;
  return (
    `CASE json_type(${doc}, ${path}) WHEN 'true' THEN x'01' WHEN 'false' THEN x'00' ` +
    `WHEN 'object' THEN x'02' WHEN 'array' THEN x'02' ELSE ${doc} ->> ${path} END`
  );
};

/** Refuses names the adapter keeps for itself or builds from read-model names. */
export const checkReadModelName = (name: string): void => {
  quoteName(name);
  if (name === '' || RESERVED_TABLES.has(name) || name.startsWith('sqlite_')) throw new Error(`A read model cannot be named ${JSON.stringify(name)}`);
  for (const suffix of [FTS_SUFFIX, COUNTS_SUFFIX, STAGING_SUFFIX, RETIRED_SUFFIX, RELAYOUT_SUFFIX]) {
    if (name.endsWith(suffix)) throw new Error(`A read model's name cannot end in ${suffix}`);
  }
};

const CREATED_WIDTH = 40;

/**
 * The sortable key of a creating position (`orderedPositionText`: text order is
 * numeric order), for positions of up to 40 digits (EventStoreDB's commit × 2^64 +
 * prepare fits).
 */
export const creationKey = (position: Position): string => {
  if (!isPosition(position) || position.length > CREATED_WIDTH) throw new Error(`Cannot order by position ${JSON.stringify(position)}`);
  return orderedPositionText(position);
};

/** Whether a position is beyond every creation key (longer than 40 digits). */
export const beyondCreationKeys = (position: Position): boolean => position.length > CREATED_WIDTH;

export const tableExists = (db: SqliteDatabase, name: string): boolean =>
  db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?").get(name)!.n > 0;

/**
 * Creates `table` with `layout`: the document with its company (the integer key
 * of `read_model_companies`, so that every index entry holds a few bytes instead
 * of the company's UUID), id and creation key; one generated column per indexed field; the searched fields lower-cased
 * (by JavaScript's `toLowerCase`, as the memory adapter compares them); and a
 * contentless FTS5 trigram table over those, whose rowid is the document's `seq`.
 * Index names carry a random token, since they keep their names when a staged
 * table is renamed over a live one.
 */
export const createReadModelTable = (db: SqliteDatabase, table: string, layout: ReadModelLayout): void => {
  const name = quoteName(table);
  const columns = [
    'seq INTEGER PRIMARY KEY',
    'company INTEGER NOT NULL',
    'id TEXT NOT NULL',
    'created TEXT NOT NULL',
    'doc TEXT NOT NULL',
    ...layout.search.map((_, i) => `s${i} TEXT`),
    ...layout.fields.map((field, i) => `f${i} GENERATED ALWAYS AS (${typedField('doc', field)}) VIRTUAL`),
    'UNIQUE (company, id)',
  ];
  db.exec(`CREATE TABLE ${name} (\n  ${columns.join(',\n  ')}\n)`);
  const token = randomBytes(6).toString('hex');
  // The company's documents in creation order (`seq` breaks ties, as the rowid that ends every
  // other index does); with the searched texts, so that a short search (which no trigram can
  // answer) reads this index alone.
  const base = ['company', 'created', 'seq', ...layout.search.map((_, i) => `s${i}`)];
  db.exec(`CREATE INDEX "rm_${token}_0" ON ${name} (${base.join(', ')})`);
  if (layout.search.length > 0) {
    // The same columns by `seq`: a full-text candidate is checked (company, texts, creation key)
    // in this narrow index instead of the table's row with its document, much faster
    // (docs/benchmarks/design-measurements.md, "SQLite read models").
    const narrow = ['seq', 'company', 'created', ...layout.search.map((_, i) => `s${i}`)];
    db.exec(`CREATE INDEX "rm_${token}${TEXT_INDEX_SUFFIX}" ON ${name} (${narrow.join(', ')})`);
  }
  const seen = new Set<string>();
  layout.indexes.forEach((fields, i) => {
    const key = ['company', ...fields.map((field) => `f${layout.fields.indexOf(field)}`), 'created'].join(', ');
    if (seen.has(key)) return;
    seen.add(key);
    db.exec(`CREATE INDEX "rm_${token}_${i + 1}" ON ${name} (${key})`);
  });
  createCountsTable(db, table);
  if (layout.search.length > 0) {
    const fts = quoteName(table + FTS_SUFFIX);
    db.exec(`DROP TABLE IF EXISTS ${fts}`);
    db.exec(
      `CREATE VIRTUAL TABLE ${fts} USING fts5(${layout.search.map((_, i) => `c${i}`).join(', ')}, ` +
        `tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1)`,
    );
  }
  db.prepare('INSERT INTO read_model_tables (name, layout) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET layout = excluded.layout').run(
    table,
    JSON.stringify(layout),
  );
};

/**
 * The counts of a read model's table, per company: its documents under each key
 * of `countKeysOf`, and its change token (`CHANGES_KEY`). Kept by every write in
 * the same transaction as the documents.
 */
const createCountsTable = (db: SqliteDatabase, table: string): void => {
  const counts = quoteName(table + COUNTS_SUFFIX);
  db.exec(`DROP TABLE IF EXISTS ${counts}`);
  db.exec(`CREATE TABLE ${counts} (company INTEGER NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (company, key)) WITHOUT ROWID`);
};

/** Counts gathered while documents are copied, written at the end with a change token per company. */
class CountsTally {
  private readonly byCompany = new Map<number, Map<string, number>>();
  private readonly keys: (doc: object) => string[];

  constructor(layout: ReadModelLayout) {
    this.keys = countKeysOf(layout);
  }

  add(company: number, doc: object): void {
    let counts = this.byCompany.get(company);
    if (!counts) this.byCompany.set(company, (counts = new Map()));
    for (const key of this.keys(doc)) counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  write(db: SqliteDatabase, table: string): void {
    const insert = db.prepare(`INSERT INTO ${quoteName(table + COUNTS_SUFFIX)} (company, key, n) VALUES (?, ?, ?)`);
    for (const [company, counts] of this.byCompany) {
      for (const [key, n] of counts) insert.run(company, key, n);
      insert.run(company, CHANGES_KEY, changeToken());
    }
  }
}

/** Counts a table's documents again into fresh counts (its totals changed, or it had none). */
const recount = (db: SqliteDatabase, table: string, layout: ReadModelLayout): void => {
  createCountsTable(db, table);
  if (layout.totals.length === 1) {
    // The company's total alone: SQLite counts it from an index.
    const counts = quoteName(table + COUNTS_SUFFIX);
    db.exec(`INSERT INTO ${counts} (company, key, n) SELECT company, '${countKey(0, [])}', count(*) FROM ${quoteName(table)} GROUP BY company`);
    const token = db.prepare(`INSERT INTO ${counts} (company, key, n) VALUES (?, '${CHANGES_KEY}', ?)`);
    for (const { company } of db.prepare<[], { company: number }>(`SELECT company FROM ${counts}`).all()) token.run(company, changeToken());
    return;
  }
  const tally = new CountsTally(layout);
  const read = db.prepare<[number, number], { seq: number; company: number; doc: string }>(
    `SELECT seq, company, doc FROM ${quoteName(table)} WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  for (let after = 0; ; ) {
    const rows = read.all(after, COPY_PAGE);
    for (const row of rows) tally.add(row.company, JSON.parse(row.doc) as object);
    if (rows.length < COPY_PAGE) break;
    after = rows[rows.length - 1]!.seq;
  }
  tally.write(db, table);
};

/** Drops a read model's table, its full-text table, its counts and its layout. */
export const dropReadModelTable = (db: SqliteDatabase, table: string): void => {
  db.exec(`DROP TABLE IF EXISTS ${quoteName(table)}`);
  db.exec(`DROP TABLE IF EXISTS ${quoteName(table + FTS_SUFFIX)}`);
  db.exec(`DROP TABLE IF EXISTS ${quoteName(table + COUNTS_SUFFIX)}`);
  db.prepare('DELETE FROM read_model_tables WHERE name = ?').run(table);
};

/** Renames a read model's table with its full-text table, counts and layout (indexes keep their names). */
export const renameReadModelTable = (db: SqliteDatabase, from: string, to: string): void => {
  db.exec(`ALTER TABLE ${quoteName(from)} RENAME TO ${quoteName(to)}`);
  if (tableExists(db, from + FTS_SUFFIX)) db.exec(`ALTER TABLE ${quoteName(from + FTS_SUFFIX)} RENAME TO ${quoteName(to + FTS_SUFFIX)}`);
  if (tableExists(db, from + COUNTS_SUFFIX)) db.exec(`ALTER TABLE ${quoteName(from + COUNTS_SUFFIX)} RENAME TO ${quoteName(to + COUNTS_SUFFIX)}`);
  db.prepare('DELETE FROM read_model_tables WHERE name = ?').run(to);
  db.prepare('UPDATE read_model_tables SET name = ? WHERE name = ?').run(to, from);
};

/** The lower-cased texts stored for the searched fields of a document (null: not a string). */
export type SearchTexts = (string | null)[];

/**
 * Makes sure `table` exists with `layout`, in one write transaction (several
 * processes may open the file at once), taken only when it does not (another
 * connection may hold the write lock for a while). A table laid out otherwise (an older
 * release, other indexes or searched fields) is copied into the new layout, keeping
 * every document, its `seq` and its creation key.
 */
export const ensureReadModelTable = (
  db: SqliteDatabase,
  table: string,
  layout: ReadModelLayout,
  searchTexts: (doc: object) => SearchTexts,
  /** Runs in the transaction that creates a table that did not exist. */
  onCreated: () => void = () => undefined,
): void => {
  const wanted = JSON.stringify(layout);
  const storedLayout = () => db.prepare<[string], { layout: string }>('SELECT layout FROM read_model_tables WHERE name = ?').get(table);
  if (tableExists(db, table) && storedLayout()?.layout === wanted) return;
  const ensure = db.transaction(() => {
    const stored = storedLayout();
    const exists = tableExists(db, table);
    if (exists && stored?.layout === wanted) return;
    if (exists && stored !== undefined && sameButTotals(stored.layout, layout)) {
      // Only the kept totals changed (or a table of a release before counts): count the documents again.
      recount(db, table, layout);
      db.prepare('UPDATE read_model_tables SET layout = ? WHERE name = ?').run(wanted, table);
      return;
    }
    if (!exists) {
      dropReadModelTable(db, table);
      createReadModelTable(db, table, layout);
      onCreated();
      return;
    }
    const target = table + RELAYOUT_SUFFIX;
    dropReadModelTable(db, target);
    createReadModelTable(db, target, layout);
    copyDocuments(db, table, target, layout, searchTexts);
    dropReadModelTable(db, table);
    renameReadModelTable(db, target, table);
  });
  ensure.immediate();
};

const COPY_PAGE = 1000;

/** Whether a stored layout is `layout` but for its totals (a layout stored before totals existed has none). */
const sameButTotals = (stored: string, layout: ReadModelLayout): boolean => {
  const { totals: _stored, ...rest } = JSON.parse(stored) as Partial<ReadModelLayout>;
  const { totals: _wanted, ...wanted } = layout;
  return JSON.stringify(rest) === JSON.stringify(wanted);
};

const copyDocuments = (
  db: SqliteDatabase,
  from: string,
  to: string,
  layout: ReadModelLayout,
  searchTexts: (doc: object) => SearchTexts,
): void => {
  const read = db.prepare<[number, number], { seq: number; company: number; id: string; created: string; doc: string }>(
    `SELECT seq, company, id, created, doc FROM ${quoteName(from)} WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  const searched = layout.search.map((_, i) => `s${i}`);
  const insert = db.prepare(
    `INSERT INTO ${quoteName(to)} (seq, company, id, created, doc${searched.map((s) => `, ${s}`).join('')}) ` +
      `VALUES (?, ?, ?, ?, ?${searched.map(() => ', ?').join('')})`,
  );
  const indexText =
    layout.search.length > 0
      ? db.prepare(
          `INSERT INTO ${quoteName(to + FTS_SUFFIX)} (rowid${layout.search.map((_, i) => `, c${i}`).join('')}) ` +
            `VALUES (?${layout.search.map(() => ', ?').join('')})`,
        )
      : null;
  const tally = new CountsTally(layout);
  for (let after = 0; ; ) {
    const rows = read.all(after, COPY_PAGE);
    for (const row of rows) {
      const doc = JSON.parse(row.doc) as object;
      const texts = searchTexts(doc);
      insert.run(row.seq, row.company, row.id, row.created, row.doc, ...texts);
      indexText?.run(row.seq, ...texts);
      tally.add(row.company, doc);
    }
    if (rows.length < COPY_PAGE) break;
    after = rows[rows.length - 1]!.seq;
  }
  tally.write(db, to);
};

/** The name of a table's index of its searched texts by `seq` (null: it searches nothing). */
export const textIndexOf = (db: SqliteDatabase, table: string): string | null =>
  db
    .prepare<[string], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?")
    .all(table)
    .map((row) => row.name)
    .find((name) => name.startsWith('rm_') && name.endsWith(TEXT_INDEX_SUFFIX)) ?? null;

/** Every table of the file whose name ends in `suffix` (a read model's own table, not its full-text one). */
export const tablesEndingIn = (db: SqliteDatabase, suffix: string): string[] =>
  db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
    .all()
    .map((row) => row.name)
    .filter((name) => name.endsWith(suffix));
