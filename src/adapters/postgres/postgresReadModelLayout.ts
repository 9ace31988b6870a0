import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { jsonPath, type ReadModelLayout } from '../readModels/readModelLayout.js';

/** Of this file's table shape; a new one lays every table out again. */
export const POSTGRES_LAYOUT_VERSION = 1;

/** Suffix of the table of counts of a read model's table (see `countKeysOf`). */
export const COUNTS_SUFFIX = '__counts';
/** Suffix of the tables a replay builds. */
export const STAGING_SUFFIX = '__replay';
/** Suffix of the table a new layout is copied into. */
export const RELAYOUT_SUFFIX = '__relayout';
/** Tables of the adapter itself, beside the read models. */
const RESERVED_TABLES = new Set(['checkpoints', 'read_model_tables', 'read_model_companies', 'leases', 'read_model_migrations']);

/** PostgreSQL's longest identifier, in bytes: a read model's name leaves room for its longest derived name. */
const MAX_IDENTIFIER_BYTES = 63;
const LONGEST_SUFFIX = STAGING_SUFFIX + COUNTS_SUFFIX;

/** A quoted SQL identifier. */
export const quoteIdentifier = (name: string): string => {
  if (name === '' || name.includes('"') || name.includes('\u0000') || Buffer.byteLength(name) > MAX_IDENTIFIER_BYTES) {
    throw new Error(`Not a PostgreSQL identifier: ${JSON.stringify(name)}`);
  }
  return `"${name}"`;
};

/** Refuses names the adapter keeps for itself, builds from read-model names, or PostgreSQL would cut short. */
export const checkReadModelName = (name: string): void => {
  quoteIdentifier(name + LONGEST_SUFFIX);
  if (RESERVED_TABLES.has(name) || name.startsWith('pg_')) throw new Error(`A read model cannot be named ${JSON.stringify(name)}`);
  for (const suffix of [COUNTS_SUFFIX, STAGING_SUFFIX, RELAYOUT_SUFFIX]) {
    if (name.endsWith(suffix)) throw new Error(`A read model's name cannot end in ${suffix}`);
  }
};

/** The names of one read model's tables in a schema, quoted and qualified. */
export interface TableNames {
  /** The table's own name (unqualified, unquoted). */
  readonly table: string;
  /** `"schema"."table"` */
  readonly documents: string;
  /** `"schema"."table__counts"` */
  readonly counts: string;
}

export const tableNames = (schema: string, table: string): TableNames => ({
  table,
  documents: `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`,
  counts: `${quoteIdentifier(schema)}.${quoteIdentifier(table + COUNTS_SUFFIX)}`,
});

/** A dotted field as a PostgreSQL text-array path literal: `'{deal,status}'` (each part an identifier, see `jsonPath`). */
export const pathLiteral = (field: string): string => {
  jsonPath(field);
  return `'{${field.split('.').join(',')}}'`;
};

/** The text of a field (`doc #>> path`): a string's value, another value's JSON text, null for JSON null and missing. */
export const fieldText = (doc: string, field: string): string => `(${doc} #>> ${pathLiteral(field)})`;

/** The JSON type of a field (`string`, `number`, …; null when missing). */
export const fieldType = (doc: string, field: string): string => `jsonb_typeof(${doc} #> ${pathLiteral(field)})`;

/**
 * A field's value as text that carries its type: `string:<the string>`,
 * `boolean:true`, `number:…`, `object:…`; null for JSON null and missing. One
 * expression answers equality on strings, booleans and null, and ranges on strings
 * (between `string:` and `string;`), by code point with the collation "C", with no
 * separate test of the type, which the planner could not estimate.
 */
export const typedText = (doc: string, field: string): string => `(${fieldType(doc, field)} || ':' || ${fieldText(doc, field)})`;

/**
 * Characters of `typedText` an index holds (at most 1,600 bytes: a B-tree entry
 * holds about 2,700). A client's long text (a deal's stage has no limit but the
 * body's) must never make a write fail.
 */
export const INDEXED_CHARS = 400;

/** `typedText` cut to `INDEXED_CHARS`, as each index of the projection's `indexes` holds it (compare it with `COLLATE "C"`). */
export const indexedText = (doc: string, field: string): string => `left(${typedText(doc, field)}, ${INDEXED_CHARS})`;

/** The typed text of a string value (see `typedText`). */
export const typedString = (value: string): string => `string:${value}`;

/** Whether a typed text is short enough that comparing `indexedText` with it is comparing the whole value. */
export const withinIndexedChars = (typed: string): boolean => [...typed].length < INDEXED_CHARS;

/** A typed text cut as `indexedText` cuts (by code point). */
export const cutToIndexedChars = (typed: string): string => [...typed].slice(0, INDEXED_CHARS).join('');

/** Longest key of counts kept as it is (a key holds the values it counts, which a client may make long). */
const COUNT_KEY_CHARS = 200;

/**
 * A key of counts (see `countKeysOf`) as its table stores it: as it is, or, when
 * longer than 200 characters, its SHA-256 (a B-tree entry of the counts' primary
 * key must stay within its limit).
 */
export const storedCountKey = (key: string): string =>
  key.length <= COUNT_KEY_CHARS ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`;

/** The searched texts' columns: `s0`, `s1`, … (the projection's `search`, lower-cased by JavaScript). */
export const searchColumns = (layout: ReadModelLayout): string[] => layout.search.map((_, i) => `s${i}`);

/**
 * The trigram index's list of entries not yet merged (GIN's fast update), in kB:
 * every search reads all of it, so the default (4 MB) slows every search until a
 * vacuum merges it, while turning fast update off slows the projector's writes;
 * 64 kB keeps most of both (measured: docs/operators/postgresql-read-models.md).
 */
const GIN_PENDING_LIST_KB = 64;

/** Where the adapter finds what it needs of the database: its schema, and pg_trgm's. */
export interface LayoutContext {
  readonly schema: string;
  /** The schema pg_trgm was installed in (its operator class is qualified with it). */
  readonly trigramSchema: string;
}

/**
 * Creates `table` with `layout` (it must not exist): each document as jsonb (with
 * its exact JSON text in `raw` when jsonb cannot hold it, see storableText.ts),
 * its company (the integer key of `read_model_companies`), id, creation position
 * (`created`, numeric: numeric order for positions of any length) and `seq`
 * (insertion order, which breaks ties between documents one event created); the
 * searched fields lower-cased by JavaScript. Indexes:
 *
 * - `(company, created, seq)`: a company's documents in creation order (lists,
 *   keyset pages, counts, short searches);
 * - `(company, <indexedText> COLLATE "C" …, created, seq)` per entry of the
 *   projection's `indexes`: equality filters read their page in order, ranges their
 *   matches, where-targets their documents;
 * - one GIN index of pg_trgm's `gin_trgm_ops` over the searched texts, for `LIKE`;
 * - `UNIQUE (company, id)`.
 *
 * Index, constraint and sequence names carry a random token: they keep their names
 * when a staged table is renamed over a live one, and names are unique per schema.
 */
export const createReadModelTable = async (client: pg.ClientBase, context: LayoutContext, table: string, layout: ReadModelLayout): Promise<void> => {
  const names = tableNames(context.schema, table);
  const token = `rm_${randomBytes(6).toString('hex')}`;
  const schema = quoteIdentifier(context.schema);
  const searched = searchColumns(layout);
  const columns = [
    `seq bigint GENERATED BY DEFAULT AS IDENTITY (SEQUENCE NAME ${schema}."${token}_seq")`,
    'company integer NOT NULL',
    'id text NOT NULL',
    'created numeric NOT NULL',
    'doc jsonb NOT NULL',
    'raw text',
    ...searched.map((column) => `${column} text`),
    `CONSTRAINT "${token}_pkey" PRIMARY KEY (seq)`,
    `CONSTRAINT "${token}_id" UNIQUE (company, id)`,
  ];
  await client.query(`CREATE TABLE ${names.documents} (\n  ${columns.join(',\n  ')}\n)`);
  // No searched text in it (an index-only count of a short search): a long text would not fit in a B-tree entry.
  await client.query(`CREATE INDEX "${token}_0" ON ${names.documents} (company, created, seq)`);
  const seen = new Set<string>();
  for (const [i, fields] of layout.indexes.entries()) {
    const key = ['company', ...fields.map((field) => `${indexedText('doc', field)} COLLATE "C"`), 'created', 'seq'].join(', ');
    if (seen.has(key)) continue;
    seen.add(key);
    await client.query(`CREATE INDEX "${token}_${i + 1}" ON ${names.documents} (${key})`);
  }
  if (searched.length > 0) {
    const trigrams = `${quoteIdentifier(context.trigramSchema)}.gin_trgm_ops`;
    await client.query(
      `CREATE INDEX "${token}_texts" ON ${names.documents} USING gin (${searched.map((column) => `${column} ${trigrams}`).join(', ')}) ` +
        `WITH (gin_pending_list_limit = ${GIN_PENDING_LIST_KB})`,
    );
  }
  await client.query(
    `CREATE TABLE ${names.counts} (company integer NOT NULL, key text NOT NULL, n bigint NOT NULL, CONSTRAINT "${token}_counts_pkey" PRIMARY KEY (company, key))`,
  );
  await client.query(
    `INSERT INTO ${schema}.read_model_tables (name, layout) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET layout = excluded.layout`,
    [table, JSON.stringify(layout)],
  );
};

/** Drops a read model's table, its counts and its layout. */
export const dropReadModelTable = async (client: pg.ClientBase, schema: string, table: string): Promise<void> => {
  const names = tableNames(schema, table);
  await client.query(`DROP TABLE IF EXISTS ${names.documents}, ${names.counts}`);
  await client.query(`DELETE FROM ${quoteIdentifier(schema)}.read_model_tables WHERE name = $1`, [table]);
};

/** Renames a read model's table with its counts and layout (its indexes keep their names). */
export const renameReadModelTable = async (client: pg.ClientBase, schema: string, from: string, to: string): Promise<void> => {
  const names = tableNames(schema, from);
  await client.query(`ALTER TABLE ${names.documents} RENAME TO ${quoteIdentifier(to)}`);
  await client.query(`ALTER TABLE ${names.counts} RENAME TO ${quoteIdentifier(to + COUNTS_SUFFIX)}`);
  await client.query(`DELETE FROM ${quoteIdentifier(schema)}.read_model_tables WHERE name = $1`, [to]);
  await client.query(`UPDATE ${quoteIdentifier(schema)}.read_model_tables SET name = $1 WHERE name = $2`, [to, from]);
};

/** The layout `table` was built with (null: no such table). */
export const storedLayout = async (client: pg.ClientBase | pg.Pool, schema: string, table: string): Promise<string | null> => {
  const { rows } = await client.query<{ layout: string }>(
    `SELECT l.layout FROM ${quoteIdentifier(schema)}.read_model_tables AS l WHERE l.name = $1 AND to_regclass($2) IS NOT NULL`,
    [table, tableNames(schema, table).documents],
  );
  return rows[0]?.layout ?? null;
};

/** Every read-model table of the schema whose name ends in `suffix`. */
export const tablesEndingIn = async (client: pg.ClientBase | pg.Pool, schema: string, suffix: string): Promise<string[]> => {
  const { rows } = await client.query<{ name: string }>(`SELECT name FROM ${quoteIdentifier(schema)}.read_model_tables`);
  return rows.map((row) => row.name).filter((name) => name.endsWith(suffix));
};
