import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RecordedEvent } from '../../application/ports/EventStore.js';
import type { LeaseStore } from '../../application/ports/LeaseStore.js';
import {
  CheckpointMovedError,
  type DocumentCollection,
  type Projection,
  type ReadModelDocument,
  type ReadModelStore,
  type ReplayedCheckpoint,
  type StagingReadModels,
} from '../../application/ports/ReadModelStore.js';
import { comparePositions, type Position } from '../../shared/Position.js';
import { layoutOf } from '../readModels/readModelLayout.js';
import { createStagedTable, ensureReadModelTable, lockReadModelTables } from './ensurePostgresReadModelTable.js';
import { PostgresDocumentCollection, companiesOf, type CollectionContext, type ReadModelWrite } from './PostgresDocumentCollection.js';
import { inlined } from './inlineStatement.js';
import { PostgresReadModelCheckpoints } from './PostgresReadModelCheckpoints.js';
import { PostgresLeaseStore } from './PostgresLeaseStore.js';
import {
  POSTGRES_LAYOUT_VERSION,
  STAGING_SUFFIX,
  checkReadModelName,
  dropReadModelTable,
  quoteIdentifier,
  renameReadModelTable,
  storedLayout,
  tableNames,
  tablesEndingIn,
} from './postgresReadModelLayout.js';
import { DEFAULT_READ_MODEL_SCHEMA, prepareReadModelSchema, readReplicaSchema } from './readModelSchema.js';
import { ReadModelCompanyKeys } from './ReadModelCompanyKeys.js';
import { inOneRoundTrip, withReadModelTransaction, type Closing } from './withReadModelTransaction.js';

type AnyCollection = PostgresDocumentCollection<ReadModelDocument>;

/** How long a swap waits for the live tables' locks in one attempt (readers queue behind a waiting swap), and how many attempts. */
const SWAP_LOCK_TIMEOUT_MS = 1_000;
const SWAP_ATTEMPTS = 30;
/** PostgreSQL's error code for a lock not granted within `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';

/** Collections bound to projections, each in its own table (`<name>`, or `<name>__replay` for a rebuild). */
class Collections {
  readonly byName = new Map<string, AnyCollection>();

  constructor(
    private readonly context: CollectionContext,
    private readonly suffix: string,
    /** A replica's: tables are never created or laid out, only checked (the primary does that, and replication brings it). */
    private readonly readOnly = false,
  ) {}

  collection<D extends ReadModelDocument>(projection: Projection<D>): PostgresDocumentCollection<D> {
    checkReadModelName(projection.name);
    const existing = this.byName.get(projection.name);
    if (existing) {
      if (existing.projection !== (projection as unknown)) throw new Error(`Collection ${projection.name} is already bound to another projection`);
      return existing as unknown as PostgresDocumentCollection<D>;
    }
    const layout = { ...layoutOf(projection as unknown as Projection<ReadModelDocument>), version: POSTGRES_LAYOUT_VERSION };
    const table = projection.name + this.suffix;
    const { pool, database } = this.context;
    // A live table is kept (laid out again when its projection changed); a staged one always starts empty.
    const prepare = this.readOnly
      ? () => checkReplicaTable(pool, database.schema, table, layout)
      : this.suffix === ''
        ? () => ensureReadModelTable(pool, database, table, layout)
        : () => createStagedTable(pool, database, table, layout);
    const created = new PostgresDocumentCollection(projection, this.context, table, layout, prepare);
    this.byName.set(projection.name, created as unknown as AnyCollection);
    return created;
  }

  async ready(): Promise<void> {
    for (const collection of this.byName.values()) await collection.ready();
  }
}

/** A replica's table is read only once it holds this release's layout of it (replayed from the primary, which lays it out). */
const checkReplicaTable = async (pool: pg.Pool, schema: string, table: string, layout: object): Promise<void> => {
  if ((await storedLayout(pool, schema, table)) !== JSON.stringify(layout)) {
    throw new Error(`the replica does not hold read model ${table} as this release lays it out (yet)`);
  }
};

/** A replica holds no lease: the projector takes them on the primary. */
class ReadOnlyLeases implements LeaseStore {
  private refusal(): Error {
    return new Error('leases are taken on the primary, never on a replica');
  }
  read(): Promise<never> {
    return Promise.reject(this.refusal());
  }
  claim(): Promise<never> {
    return Promise.reject(this.refusal());
  }
  renew(): Promise<never> {
    return Promise.reject(this.refusal());
  }
  release(): Promise<never> {
    return Promise.reject(this.refusal());
  }
}

/** The collections as this store's own (a batch is applied inside its transaction). */
const ownCollections = (context: CollectionContext, collections: readonly DocumentCollection<ReadModelDocument>[]): AnyCollection[] =>
  collections.map((collection) => {
    if (!(collection instanceof PostgresDocumentCollection) || collection.context !== context) {
      throw new Error(`Collection ${collection.projection.name} does not belong to this store`);
    }
    return collection as AnyCollection;
  });

/**
 * Runs a write transaction for a batch, keeping the company keys it used once it commits
 * (`opening` and `closing`: statements sent with its BEGIN and its COMMIT, see
 * `withReadModelTransaction`).
 */
const inWrite = async <T>(
  context: CollectionContext,
  work: (write: ReadModelWrite, opened: readonly pg.QueryResult[], closing: Closing) => Promise<T>,
  opening: readonly string[] = [],
): Promise<T> => {
  const companyKeys = new Map<string, number>();
  const result = await withReadModelTransaction(context.pool, (client, opened, closing) => work({ client, companyKeys }, opened, closing), opening);
  context.keys.remember(companyKeys);
  return result;
};

/**
 * A replay's tables, `<name>__replay` beside each live `<name>`, built while the
 * live ones serve. `swap` drops each live table and renames its staged one in its
 * place, then saves the checkpoint, in one transaction: readers (in any process)
 * see either every old read model or every rebuilt one, never a mix.
 */
class PostgresStaging implements StagingReadModels {
  private readonly staged: Collections;
  private done = false;

  constructor(
    private readonly context: CollectionContext,
    private readonly checkpoints: PostgresReadModelCheckpoints,
  ) {
    this.staged = new Collections(context, STAGING_SUFFIX);
  }

  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    if (this.done) throw new Error('This staging was already swapped in or discarded');
    return this.staged.collection(projection);
  }

  /** Creates the (empty) staged table of every collection handed out so far. */
  async init(): Promise<void> {
    await this.staged.ready();
  }

  async applyBatch(collections: readonly DocumentCollection<ReadModelDocument>[], events: readonly RecordedEvent[]): Promise<void> {
    const own = ownCollections(this.context, collections);
    for (const collection of own) await collection.ready();
    await inWrite(this.context, async (write) => {
      for (const collection of own) await collection.applyIn(write, events);
    });
  }

  async swap(checkpoint: ReplayedCheckpoint): Promise<void> {
    if (this.done) throw new Error('This staging was already swapped in or discarded');
    await this.staged.ready();
    const { schema } = this.context.database;
    const names = [...this.staged.byName.keys()];
    // Statistics and the visibility map before the tables serve (autovacuum would come later): plans, and
    // the trigram index's pending entries merged.
    for (const name of names) await this.context.pool.query(`VACUUM (ANALYZE) ${tableNames(schema, name + STAGING_SUFFIX).documents}`);
    for (let attempt = 1; ; attempt++) {
      try {
        await withReadModelTransaction(this.context.pool, async (client) => {
          await client.query(`SET LOCAL lock_timeout = ${SWAP_LOCK_TIMEOUT_MS}`);
          // The checkpoint first, as every batch takes it: no batch commits between the check and the swap.
          const now = await this.checkpoints.lockIn(client, checkpoint.name);
          if (checkpoint.expected !== undefined && now !== checkpoint.expected) {
            throw new CheckpointMovedError(checkpoint.name, checkpoint.expected, now);
          }
          await lockReadModelTables(client, schema);
          for (const name of names) {
            await dropReadModelTable(client, schema, name);
            await renameReadModelTable(client, schema, name + STAGING_SUFFIX, name);
          }
          await client.query(`DELETE FROM ${quoteIdentifier(schema)}.read_models_to_build WHERE name = ANY($1)`, [names]);
          if (checkpoint.position === null) await this.checkpoints.resetIn(client, checkpoint.name);
          else await this.checkpoints.saveIn(client, checkpoint.name, checkpoint.position, checkpoint.eventId ?? null);
        });
        break;
      } catch (error) {
        // Readers held a live table for longer than a moment: let them through, then try again.
        if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= SWAP_ATTEMPTS) throw error;
        await sleep(SWAP_LOCK_TIMEOUT_MS / 10);
      }
    }
    this.done = true;
  }

  async discard(): Promise<void> {
    this.done = true;
    const { schema } = this.context.database;
    await withReadModelTransaction(this.context.pool, async (client) => {
      await lockReadModelTables(client, schema);
      for (const name of this.staged.byName.keys()) await dropReadModelTable(client, schema, name + STAGING_SUFFIX);
    });
  }
}

export interface PostgresReadModelStoreOptions {
  /** The schema of the read models' tables (default `read_models`), created when missing. */
  readonly schema?: string;
  /** The leases to hand out as `leases` (default: the `leases` table of the schema). */
  readonly leases?: LeaseStore;
  /**
   * The log (`log_events`) is in the same database: each batch's transaction checks that
   * it holds the batch's last event at its position (see `logHoldsStatement`).
   */
  readonly besideLog?: boolean;
}

/**
 * Read models in PostgreSQL, in a schema of their own (`read_models`): one table
 * of jsonb documents per read model, indexed as its projection declares, searched
 * through a pg_trgm GIN index, with per-company counts; the checkpoint committed
 * in the same transaction as the documents, so a restart resumes exactly where
 * they are; the projector's lease beside them. Every process on the database, on
 * any host, reads the same documents.
 */
export class PostgresReadModelStore implements ReadModelStore {
  readonly kind = 'postgres' as const;
  readonly durable = true;
  readonly checkpoints: PostgresReadModelCheckpoints;
  readonly leases: LeaseStore;
  private readonly collections: Collections;
  /**
   * Where each checkpoint stood when this store last committed under it, or read it
   * (absent: not known). A batch of creations only is sent in one round trip that
   * fails unless the checkpoint is still there.
   */
  private readonly committed = new Map<string, Position>();
  private readonly besideLog: boolean;

  private constructor(
    private readonly context: CollectionContext,
    /** Ended by `close` (a pool this store opened itself); a pool handed in is its owner's. */
    private readonly ownPool: pg.Pool | null,
    options: PostgresReadModelStoreOptions,
    /** On a replica: reads only (see `replica`). */
    private readonly readOnly = false,
  ) {
    const schema = quoteIdentifier(context.database.schema);
    this.checkpoints = new PostgresReadModelCheckpoints(context.pool, `${schema}.checkpoints`);
    this.leases = options.leases ?? new PostgresLeaseStore(context.pool, `${schema}.leases`);
    this.collections = new Collections(context, '', readOnly);
    this.besideLog = options.besideLog ?? false;
  }

  /**
   * The read models as a streaming replica of their database has them (POSTGRES_READ_URL):
   * documents and checkpoints to read, nothing written. The schema and tables are the
   * primary's (this release's layout, checked at each table's first read: a replica
   * that has not replayed them yet fails the read, which its caller then makes on the
   * primary). `close` leaves the pool open.
   */
  static async replica(pool: pg.Pool, options: Pick<PostgresReadModelStoreOptions, 'schema'> = {}): Promise<PostgresReadModelStore> {
    const schema = options.schema ?? DEFAULT_READ_MODEL_SCHEMA;
    const database = await readReplicaSchema(pool, schema);
    const keys = new ReadModelCompanyKeys(pool, `${quoteIdentifier(schema)}.read_model_companies`);
    return new PostgresReadModelStore({ pool, database, keys }, null, { leases: new ReadOnlyLeases() }, true);
  }

  /**
   * The read models on a pool shared with the other PostgreSQL stores: prepares
   * the schema (see `prepareReadModelSchema`). `close` leaves the pool open.
   */
  static async open(pool: pg.Pool, options: PostgresReadModelStoreOptions = {}): Promise<PostgresReadModelStore> {
    return PostgresReadModelStore.on(pool, null, options);
  }

  /** The read models on a pool of their own, to `url`; `close` ends it. */
  static async connect(url: string, options: PostgresReadModelStoreOptions & { readonly maxConnections?: number } = {}): Promise<PostgresReadModelStore> {
    const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 10, application_name: 'chronicle read models' });
    // An idle connection that fails (the server restarted) is dropped and replaced by the pool; the next query that fails says so.
    pool.on('error', () => undefined);
    try {
      return await PostgresReadModelStore.on(pool, pool, options);
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  private static async on(pool: pg.Pool, own: pg.Pool | null, options: PostgresReadModelStoreOptions): Promise<PostgresReadModelStore> {
    const schema = options.schema ?? DEFAULT_READ_MODEL_SCHEMA;
    const database = await prepareReadModelSchema(pool, schema);
    const keys = new ReadModelCompanyKeys(pool, `${quoteIdentifier(schema)}.read_model_companies`);
    return new PostgresReadModelStore({ pool, database, keys }, own, options);
  }

  /** The schema the read models' tables are in. */
  get schema(): string {
    return this.context.database.schema;
  }

  /** Binds a projection to its table (created, or laid out again, before the first use, or by `init`). */
  collection<D extends ReadModelDocument>(projection: Projection<D>): DocumentCollection<D> {
    return this.collections.collection(projection);
  }

  async init(): Promise<void> {
    await this.collections.ready();
  }

  async readModelsToBuild(): Promise<readonly string[]> {
    await this.collections.ready();
    const { rows } = await this.context.pool.query<{ name: string }>(
      `SELECT name FROM ${quoteIdentifier(this.context.database.schema)}.read_models_to_build ORDER BY name`,
    );
    return rows.map((row) => row.name);
  }

  /**
   * Folds the batch into every collection and saves the checkpoint at its last
   * position, in one transaction. The checkpoint is read first under its lock:
   * events at or before it were applied by another process (or a replay swapped
   * in past them) and are skipped, so the checkpoint never moves back.
   *
   * Two round trips when this process knows the key of every company the batch
   * names: the checkpoint's lock and read, and the loads of the rows the batch
   * touches (locked), go with the `BEGIN`; the writes and the checkpoint's save
   * with the `COMMIT`, all with their values inlined. One round trip when, besides,
   * every event creates the documents it targets (`Projection.creates`: nothing to
   * load) and this store knows where the checkpoint stands: the lock, a check that
   * the checkpoint is still there, the writes and the save between the `BEGIN` and
   * the `COMMIT`; if the check fails (another process or a replay moved it) or a
   * document is stored after all, that transaction is rolled back and the batch is
   * applied as any other. Otherwise (a new company, or part of the batch already
   * applied) each collection loads and writes in turn.
   */
  async applyBatch(
    collections: readonly DocumentCollection<ReadModelDocument>[],
    events: readonly RecordedEvent[],
    checkpoint: string,
  ): Promise<void> {
    if (this.readOnly) throw new Error('the read models of a replica are read, never written');
    const own = ownCollections(this.context, collections);
    if (events.length === 0) return;
    for (const collection of own) await collection.ready();
    const plans = own.map((collection) => ({ collection, planned: collection.planned(events) })).filter((p) => p.planned.length > 0);
    const keys = this.context.keys.knownKeys(new Set(plans.flatMap((p) => [...companiesOf(p.planned)])));
    const locking = this.checkpoints.lockStatements(checkpoint);
    const last = events[events.length - 1]!;
    const expected = this.committed.get(checkpoint);
    this.committed.delete(checkpoint);
    const logCheck = this.besideLog ? [this.checkpoints.logHoldsStatement(last.position, last.id)] : [];
    if (keys !== null && expected !== undefined && comparePositions(events[0]!.position, expected) > 0 && plans.every((p) => p.collection.createsOnly(p.planned))) {
      try {
        await inOneRoundTrip(this.context.pool, [
          ...locking,
          this.checkpoints.guardStatement(checkpoint, expected),
          ...plans.flatMap(({ collection, planned }) => collection.foldedWrites(planned, keys, []).map(inlined)),
          ...logCheck,
          this.checkpoints.saveStatement(checkpoint, last.position, last.id),
        ]);
        this.committed.set(checkpoint, last.position);
        return;
      } catch {
        // Applied below as any batch, from the checkpoint as it is (what failed fails there again, and is thrown).
      }
    }
    const loads = keys === null ? [] : plans.map((p) => p.collection.loadStatements(p.planned, keys));
    const saved = await inWrite(
      this.context,
      async (write, opened, closing) => {
        const stored = this.checkpoints.lockedPosition(opened);
        const fresh = stored === null ? events : events.filter((event) => comparePositions(event.position, stored) > 0);
        if (fresh.length === 0) return stored;
        if (keys !== null && fresh.length === events.length) {
          let next = locking.length;
          plans.forEach(({ collection, planned }, i) => {
            const loaded = opened.slice(next, (next += loads[i]!.length));
            closing.statements.push(...collection.foldedWrites(planned, keys, loaded).map(inlined));
          });
        } else {
          for (const collection of own) await collection.applyIn(write, fresh);
        }
        closing.statements.push(...logCheck, this.checkpoints.saveStatement(checkpoint, last.position, last.id));
        return last.position;
      },
      [...locking, ...loads.flat().map(inlined)],
    );
    if (saved !== null) this.committed.set(checkpoint, saved);
  }

  /** Drops what an interrupted replay left, then hands out fresh staging tables. */
  async staging(): Promise<StagingReadModels> {
    if (this.readOnly) throw new Error('the read models of a replica are read, never written');
    const { schema } = this.context.database;
    await withReadModelTransaction(this.context.pool, async (client) => {
      await lockReadModelTables(client, schema);
      for (const table of await tablesEndingIn(client, schema, STAGING_SUFFIX)) await dropReadModelTable(client, schema, table);
    });
    return new PostgresStaging(this.context, this.checkpoints);
  }

  async close(): Promise<void> {
    if (this.ownPool && !this.ownPool.ended) await this.ownPool.end();
  }
}
