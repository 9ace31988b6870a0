import { randomBytes } from 'node:crypto';
import type { Projection, ReadModelDocument } from '../../application/ports/ReadModelStore.js';
import { isPosition, type Position } from '../../shared/Position.js';
import type { SqliteDatabase } from './openSqliteDatabase.js';

/**
 * How one read model is stored in SQLite, derived from its projection. Stored as
 * JSON beside the table (`read_model_tables`), so that a release whose projection
 * declares other indexes or searched fields finds out and lays the table out again.
 */
export interface ReadModelLayout {
  /** Of this file's table shape; a new one lays every table out again. */
  readonly version: number;
  /** Dotted paths with a generated column each: `f0`, `f1`, … */
  readonly fields: readonly string[];
  /** Each index's fields (after the company, before the creation key). */
  readonly indexes: readonly (readonly string[])[];
  /** Searched fields: lower-cased text in `s0`, `s1`, …, and the full-text columns `c0`, `c1`, … */
  readonly search: readonly string[];
}

export const LAYOUT_VERSION = 1;

/** Suffix of the full-text table of a read model's table. */
export const FTS_SUFFIX = '__fts';
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

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The JSON path of a dotted field, each key quoted (`$."deal"."status"`). */
export const jsonPath = (field: string): string => {
  const parts = field.split('.');
  if (!parts.every((part) => IDENTIFIER.test(part))) throw new Error(`Not a field path: ${JSON.stringify(field)}`);
  return '$' + parts.map((part) => `."${part}"`).join('');
};

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

export const layoutOf = (projection: Projection<ReadModelDocument>): ReadModelLayout => {
  const fields: string[] = [];
  for (const index of projection.indexes) for (const field of index) if (!fields.includes(field)) fields.push(field);
  const search: string[] = [];
  for (const field of projection.search ?? []) if (!search.includes(field)) search.push(field);
  for (const field of [...fields, ...search]) jsonPath(field);
  return { version: LAYOUT_VERSION, fields, indexes: projection.indexes.map((index) => [...index]), search };
};

/** Refuses names the adapter keeps for itself or builds from read-model names. */
export const checkReadModelName = (name: string): void => {
  quoteName(name);
  if (name === '' || RESERVED_TABLES.has(name) || name.startsWith('sqlite_')) throw new Error(`A read model cannot be named ${JSON.stringify(name)}`);
  for (const suffix of [FTS_SUFFIX, STAGING_SUFFIX, RETIRED_SUFFIX, RELAYOUT_SUFFIX]) {
    if (name.endsWith(suffix)) throw new Error(`A read model's name cannot end in ${suffix}`);
  }
};

const CREATED_WIDTH = 40;

/**
 * The sortable key of a creating position: its length in two digits, then the
 * digits. Positions have no leading zeros, so this text order is their numeric
 * order, for positions of up to 40 digits (EventStoreDB's commit × 2^64 + prepare
 * fits), and costs 2 bytes where zero-padding to 40 digits would cost up to 39 in
 * every index that ends with it.
 */
export const creationKey = (position: Position): string => {
  if (!isPosition(position) || position.length > CREATED_WIDTH) throw new Error(`Cannot order by position ${JSON.stringify(position)}`);
  return String(position.length).padStart(2, '0') + position;
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
    // in this narrow index instead of the table's row with its document, about twice as fast.
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

/** Drops a read model's table, its full-text table and its layout. */
export const dropReadModelTable = (db: SqliteDatabase, table: string): void => {
  db.exec(`DROP TABLE IF EXISTS ${quoteName(table)}`);
  db.exec(`DROP TABLE IF EXISTS ${quoteName(table + FTS_SUFFIX)}`);
  db.prepare('DELETE FROM read_model_tables WHERE name = ?').run(table);
};

/** Renames a read model's table with its full-text table and layout (indexes keep their names). */
export const renameReadModelTable = (db: SqliteDatabase, from: string, to: string): void => {
  db.exec(`ALTER TABLE ${quoteName(from)} RENAME TO ${quoteName(to)}`);
  if (tableExists(db, from + FTS_SUFFIX)) db.exec(`ALTER TABLE ${quoteName(from + FTS_SUFFIX)} RENAME TO ${quoteName(to + FTS_SUFFIX)}`);
  db.prepare('DELETE FROM read_model_tables WHERE name = ?').run(to);
  db.prepare('UPDATE read_model_tables SET name = ? WHERE name = ?').run(to, from);
};

/** The lower-cased texts stored for the searched fields of a document (null: not a string). */
export type SearchTexts = (string | null)[];

/**
 * Makes sure `table` exists with `layout`, in one write transaction (several
 * processes may open the file at once). A table laid out otherwise (an older
 * release, other indexes or searched fields) is copied into the new layout, keeping
 * every document, its `seq` and its creation key.
 */
export const ensureReadModelTable = (
  db: SqliteDatabase,
  table: string,
  layout: ReadModelLayout,
  searchTexts: (doc: object) => SearchTexts,
): void => {
  const wanted = JSON.stringify(layout);
  const ensure = db.transaction(() => {
    const stored = db.prepare<[string], { layout: string }>('SELECT layout FROM read_model_tables WHERE name = ?').get(table);
    const exists = tableExists(db, table);
    if (exists && stored?.layout === wanted) return;
    if (!exists) {
      dropReadModelTable(db, table);
      createReadModelTable(db, table, layout);
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
  for (let after = 0; ; ) {
    const rows = read.all(after, COPY_PAGE);
    for (const row of rows) {
      const texts = searchTexts(JSON.parse(row.doc) as object);
      insert.run(row.seq, row.company, row.id, row.created, row.doc, ...texts);
      indexText?.run(row.seq, ...texts);
    }
    if (rows.length < COPY_PAGE) return;
    after = rows[rows.length - 1]!.seq;
  }
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
