import type pg from 'pg';
import { CHANGES_KEY, changeToken, countKeysOf, valueAt, type ReadModelLayout } from '../readModels/readModelLayout.js';
import {
  RELAYOUT_SUFFIX,
  createReadModelTable,
  dropReadModelTable,
  quoteIdentifier,
  renameReadModelTable,
  searchColumns,
  storedCountKey,
  storedLayout,
  tableNames,
  type LayoutContext,
} from './postgresReadModelLayout.js';
import { searchedText } from './storableText.js';
import { withReadModelTransaction } from './withReadModelTransaction.js';

/** Rows copied per statement when a table is laid out again or counted. */
const COPY_PAGE = 1000;

/** Waits (inside a transaction, until it ends) until no other process creates, lays out, drops or swaps read-model tables of the schema. */
export const lockReadModelTables = async (client: pg.ClientBase, schema: string): Promise<void> => {
  await client.query("SELECT pg_advisory_xact_lock(hashtext('chronicle read-model tables'), hashtext($1))", [schema]);
};

/** Counts gathered while documents are read, written at the end with a change token per company. */
class CountsTally {
  private readonly byCompany = new Map<number, Map<string, number>>();
  private readonly keys: (doc: object) => string[];

  constructor(layout: ReadModelLayout) {
    const keysOf = countKeysOf(layout);
    this.keys = (doc) => keysOf(doc).map(storedCountKey);
  }

  add(company: number, doc: object): void {
    let counts = this.byCompany.get(company);
    if (!counts) this.byCompany.set(company, (counts = new Map()));
    for (const key of this.keys(doc)) counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  async write(client: pg.ClientBase, countsTable: string): Promise<void> {
    const rows: [number, string, number][] = [];
    for (const [company, counts] of this.byCompany) {
      for (const [key, n] of counts) rows.push([company, key, n]);
      rows.push([company, CHANGES_KEY, changeToken()]);
    }
    for (let i = 0; i < rows.length; i += COPY_PAGE) {
      const page = rows.slice(i, i + COPY_PAGE);
      await client.query(`INSERT INTO ${countsTable} (company, key, n) SELECT * FROM unnest($1::integer[], $2::text[], $3::bigint[])`, [
        page.map((row) => row[0]),
        page.map((row) => row[1]),
        page.map((row) => row[2]),
      ]);
    }
  }
}

interface CopiedRow {
  seq: string;
  company: number;
  id: string;
  created: string;
  doc: string;
  raw: string | null;
}

/** Every row of `table`, a page at a time in `seq` order (inside the caller's transaction). */
async function* rowsOf(client: pg.ClientBase, documents: string): AsyncIterable<CopiedRow[]> {
  for (let after = '0'; ; ) {
    const { rows } = await client.query<CopiedRow>(
      `SELECT seq, company, id, created::text AS created, doc::text AS doc, raw FROM ${documents} WHERE seq > $1 ORDER BY seq LIMIT ${COPY_PAGE}`,
      [after],
    );
    if (rows.length > 0) yield rows;
    if (rows.length < COPY_PAGE) return;
    after = rows[rows.length - 1]!.seq;
  }
}

/** Counts a table's documents again into empty counts (its kept totals changed). */
const recount = async (client: pg.ClientBase, schema: string, table: string, layout: ReadModelLayout): Promise<void> => {
  const names = tableNames(schema, table);
  await client.query(`DELETE FROM ${names.counts}`);
  const tally = new CountsTally(layout);
  for await (const rows of rowsOf(client, names.documents)) for (const row of rows) tally.add(row.company, JSON.parse(row.raw ?? row.doc) as object);
  await tally.write(client, names.counts);
};

/** Copies every document of `from` into `to` (laid out with `layout`), keeping its `seq`, company and creation position. */
const copyDocuments = async (client: pg.ClientBase, schema: string, from: string, to: string, layout: ReadModelLayout): Promise<void> => {
  const source = tableNames(schema, from);
  const target = tableNames(schema, to);
  const searched = searchColumns(layout);
  const columns = ['seq', 'company', 'id', 'created', 'doc', 'raw', ...searched].join(', ');
  const types = ['bigint', 'integer', 'text', 'numeric', 'jsonb', 'text', ...searched.map(() => 'text')];
  const tally = new CountsTally(layout);
  for await (const rows of rowsOf(client, source.documents)) {
    const docs = rows.map((row) => JSON.parse(row.raw ?? row.doc) as object);
    rows.forEach((row, i) => tally.add(row.company, docs[i]!));
    await client.query(`INSERT INTO ${target.documents} (${columns}) SELECT * FROM unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})`, [
      rows.map((row) => row.seq),
      rows.map((row) => row.company),
      rows.map((row) => row.id),
      rows.map((row) => row.created),
      rows.map((row) => row.doc),
      rows.map((row) => row.raw),
      ...layout.search.map((field) => docs.map((doc) => searchedText(valueAt(doc, field)))),
    ]);
  }
  await tally.write(client, target.counts);
  // The copied rows kept their `seq`: new rows go on after the last one.
  await client.query(`SELECT setval(pg_get_serial_sequence($1, 'seq'), coalesce((SELECT max(seq) FROM ${target.documents}), 0) + 1, false)`, [
    target.documents,
  ]);
};

/** Whether a stored layout is `layout` but for its totals. */
const sameButTotals = (stored: string, layout: ReadModelLayout): boolean => {
  const { totals: _stored, ...rest } = JSON.parse(stored) as Partial<ReadModelLayout>;
  const { totals: _wanted, ...wanted } = layout;
  return JSON.stringify(rest) === JSON.stringify(wanted);
};

/**
 * Makes sure a live read model's table exists with `layout`: looked up first (no
 * lock when it does), else in one transaction under the schema's table lock
 * (several processes may start at once). A table of another layout (an older
 * release, other indexes or searched fields) is copied into the new layout,
 * keeping every document, its `seq` and its creation position; a table whose
 * kept totals alone changed is counted again.
 */
export const ensureReadModelTable = async (pool: pg.Pool, context: LayoutContext, table: string, layout: ReadModelLayout): Promise<void> => {
  const wanted = JSON.stringify(layout);
  if ((await storedLayout(pool, context.schema, table)) === wanted) return;
  await withReadModelTransaction(pool, async (client) => {
    await lockReadModelTables(client, context.schema);
    const stored = await storedLayout(client, context.schema, table);
    if (stored === wanted) return;
    const { rows } = await client.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [tableNames(context.schema, table).documents]);
    if (stored === null) {
      if (rows[0]!.exists) {
        throw new Error(`The table of read model ${table} exists without the layout it was built with; drop it, then run chronicle replay`);
      }
      await dropReadModelTable(client, context.schema, table);
      await createReadModelTable(client, context, table, layout);
      // Created beside documents that had applied the log, it lacks what came before: listed to be built.
      const s = quoteIdentifier(context.schema);
      await client.query(
        `INSERT INTO ${s}.read_models_to_build (name) SELECT $1 WHERE EXISTS (SELECT 1 FROM ${s}.checkpoints) ON CONFLICT (name) DO NOTHING`,
        [table],
      );
      return;
    }
    if (sameButTotals(stored, layout)) {
      await recount(client, context.schema, table, layout);
    } else {
      const target = table + RELAYOUT_SUFFIX;
      await dropReadModelTable(client, context.schema, target);
      await createReadModelTable(client, context, target, layout);
      await copyDocuments(client, context.schema, table, target, layout);
      await dropReadModelTable(client, context.schema, table);
      await renameReadModelTable(client, context.schema, target, table);
    }
    await client.query(`UPDATE ${quoteIdentifier(context.schema)}.read_model_tables SET layout = $1 WHERE name = $2`, [wanted, table]);
  });
};

/** Creates an empty staged table (dropping what an earlier rebuild left under its name). */
export const createStagedTable = async (pool: pg.Pool, context: LayoutContext, table: string, layout: ReadModelLayout): Promise<void> => {
  await withReadModelTransaction(pool, async (client) => {
    await lockReadModelTables(client, context.schema);
    await dropReadModelTable(client, context.schema, table);
    await createReadModelTable(client, context, table, layout);
  });
};
