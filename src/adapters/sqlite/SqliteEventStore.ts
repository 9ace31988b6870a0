import type { Statement } from 'better-sqlite3';
import {
  DuplicateEventIdError,
  SubjectKeyTakenError,
  WrongExpectedRevisionError,
  invalidStreamAppends,
  notify,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type RewrittenEvent,
  type SubscribeOptions,
  type StreamAppend,
  type Subscription,
} from '../../application/ports/EventStore.js';
import type { Position } from '../../shared/Position.js';
import { Alarm, backoffMs } from '../../application/subscriptions/Alarm.js';
import { openSqliteDatabase, type SqliteDatabase } from './openSqliteDatabase.js';
import { LockRetry, withoutLockWait } from './writeLock.js';
import { translateSqliteError } from './sqliteErrors.js';

interface Row {
  position: number;
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

/** One append or multi-stream append waiting for the next group commit. */
interface PendingAppend {
  readonly appends: readonly StreamAppend[];
  /** New subjects' key texts to keep in the same commit (`appendToStreamsWithKeys`). */
  readonly keys?: ReadonlyMap<string, string>;
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

export interface SqliteEventStoreOptions {
  /**
   * How often an idle subscription looks whether another process committed to the
   * file (`PRAGMA data_version`, read from the connection's shared memory, no I/O);
   * it reads the log only when one did. Default 5 ms. A process told of the
   * commit (`lookNow`, API_WORKERS) looks at once.
   */
  readonly pollIntervalMs?: number;
  /**
   * How long a group commit keeps trying for the write lock another connection
   * holds (another API process, the CLI) before its appends fail (503
   * STORE_BUSY). Default 10 s, the connection's busy timeout.
   */
  readonly lockWaitMs?: number;
}

const toRecorded = (row: Row): RecordedEvent => ({
  id: row.id,
  stream: row.stream,
  revision: row.revision,
  position: String(row.position),
  type: row.type,
  data: JSON.parse(row.data),
  metadata: JSON.parse(row.metadata),
  recordedAt: row.recorded_at,
});

/** How many of its last committed rows the store keeps for its subscriptions (at least). */
const RECENT_ROWS = 4096;

const isUniqueViolation = (error: unknown): boolean =>
  error instanceof Error && 'code' in error && String((error as { code: unknown }).code).startsWith('SQLITE_CONSTRAINT');

/**
 * The embedded event store on one SQLite file.
 *
 * Appends are group-committed: every append requested during one turn of the
 * event loop is written in a single transaction (one fsync), each inside its own
 * savepoint with its own expected-revision check, so each keeps its own success
 * or failure. A multi-stream append (`appendToStreams`) is one such append: all
 * its streams in one savepoint, so a wrong revision on any of them rolls back
 * all of them. A promise resolves only after the commit is durable.
 *
 * Subscriptions are woken by appends of this process (they read the new rows in
 * the loop's next turn, once the appends' callers have answered), and see those of
 * other processes on the same file (API processes beside a projector, the CLI)
 * within `pollIntervalMs`: an idle subscription reads the log again only once the
 * file's data version moved.
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  private pending: PendingAppend[] = [];
  private flushScheduled = false;
  /** The wait of the group commit at the head of `pending` for a write lock another connection holds. */
  private readonly lockRetry: LockRetry;
  private readonly alarms = new Set<Alarm>();
  private readonly appendListeners = new Set<() => void>();
  private readonly pollIntervalMs: number;
  private closed = false;
  /**
   * The rows this process committed last, positions contiguous (the log's tail as
   * this connection wrote it): subscriptions of this process (projections, webhook
   * fan-out) read their new events here instead of from the file. See readAllSync.
   */
  private recent: Row[] = [];
  /** `PRAGMA data_version` inside the transaction that wrote `recent`'s last row. */
  private versionAtRecentTail = -1;
  private readonly statements: {
    head: Statement<[string], { revision: number | null }>;
    insert: Statement<[string, string, number, string, string, string, string]>;
    readStream: Statement<[string, number], Row>;
    readStreamLimited: Statement<[string, number, number], Row>;
    readAll: Statement<[number, number], Row>;
    headPosition: Statement<[], { position: number | null }>;
    idAt: Statement<[number], string>;
    dataVersion: Statement<[], number>;
  };
  /** Appends one stream's events, adding the rows it inserted to `rows`. */
  private readonly appendOne: (request: StreamAppend, recordedAt: string, rows: Row[]) => AppendResult;
  private readonly appendInSavepoint: (requests: readonly StreamAppend[], recordedAt: string, rows: Row[]) => AppendResult[];
  private readonly appendWithKeysInSavepoint: (
    requests: readonly StreamAppend[],
    keys: ReadonlyMap<string, string>,
    recordedAt: string,
    rows: Row[],
  ) => AppendResult[];
  /** One group commit: each append's result, the rows stored, and the file's data version under the write lock. */
  private readonly appendBatch: (batch: readonly PendingAppend[], waitForLock: boolean) => {
    readonly results: Array<AppendResult[] | { error: unknown }>;
    readonly rows: Row[];
    readonly version: number;
  };

  static open(file: string, options: SqliteEventStoreOptions = {}): SqliteEventStore {
    return new SqliteEventStore(openSqliteDatabase(file), options, true);
  }

  constructor(
    readonly db: SqliteDatabase,
    options: SqliteEventStoreOptions = {},
    private readonly ownsDatabase = false,
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 5;
    this.lockRetry = new LockRetry(options.lockWaitMs);
    this.statements = {
      head: db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?'),
      insert: db.prepare(
        'INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      // Two statements: a LIMIT bound to -1 gives SQLite a much slower plan for the common full read
      // (docs/benchmarks/design-measurements.md).
      readStream: db.prepare('SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision'),
      readStreamLimited: db.prepare(
        'SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?',
      ),
      readAll: db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      headPosition: db.prepare('SELECT MAX(position) AS position FROM events'),
      idAt: db.prepare<[number], string>('SELECT id FROM events WHERE position = ?').pluck(),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    };

    // Checks the expected revision before writing anything, then inserts the events.
    this.appendOne = (request: StreamAppend, recordedAt: string, rows: Row[]): AppendResult => {
      // A new stream needs no look at its head first: its first event takes revision 0, which
      // UNIQUE (stream, revision) refuses when the stream exists.
      const creates = request.expected === 'no_stream';
      const revision = creates ? null : this.statements.head.get(request.stream)!.revision;
      const actual = revision ?? 'no_stream';
      if (!matches(request.expected, actual)) {
        throw new WrongExpectedRevisionError(request.stream, request.expected, actual);
      }
      let next = revision ?? -1;
      let position = 0;
      for (const event of request.events) {
        next += 1;
        try {
          const data = JSON.stringify(event.data);
          const metadata = JSON.stringify(event.metadata);
          // An imported event keeps the time it was first recorded at.
          const at = event.recordedAt ?? recordedAt;
          const info = this.statements.insert.run(event.id, request.stream, next, event.type, data, metadata, at);
          position = Number(info.lastInsertRowid);
          rows.push({ position, id: event.id, stream: request.stream, revision: next, type: event.type, data, metadata, recorded_at: at });
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
          // Refused at revision 0: the stream exists (reported first, as a look at its head would have), else the id.
          const head = creates && next === 0 ? this.statements.head.get(request.stream)!.revision : null;
          if (head !== null) throw new WrongExpectedRevisionError(request.stream, request.expected, head);
          throw new DuplicateEventIdError(event.id);
        }
      }
      return { nextRevision: next, position: String(position) };
    };
    // A nested better-sqlite3 transaction is a savepoint: a multi-event or multi-stream append
    // that fails part-way rolls back alone. A single-event append needs none: a failed INSERT is atomic.
    this.appendInSavepoint = db.transaction((requests: readonly StreamAppend[], recordedAt: string, rows: Row[]) =>
      requests.map((request) => this.appendOne(request, recordedAt, rows)),
    );

    const keepKey = db.prepare('INSERT INTO subject_keys (subject, key) VALUES (?, ?) ON CONFLICT (subject) DO NOTHING');
    const keptKey = db.prepare<[string], { key: string | null }>('SELECT key FROM subject_keys WHERE subject = ?');
    this.appendWithKeysInSavepoint = db.transaction((requests: readonly StreamAppend[], keys: ReadonlyMap<string, string>, recordedAt: string, rows: Row[]) => {
      for (const [subject, key] of keys) {
        if (keepKey.run(subject, key).changes === 0) throw new SubjectKeyTakenError(subject, (keptKey.get(subject)?.key ?? null) === null);
      }
      return requests.map((request) => this.appendOne(request, recordedAt, rows));
    });

    const batchTransaction = db.transaction((batch: readonly PendingAppend[]) => {
      const recordedAt = new Date().toISOString();
      const rows: Row[] = [];
      const results = batch.map(({ appends, keys }) => {
        const before = rows.length;
        try {
          if (keys) return this.appendWithKeysInSavepoint(appends, keys, recordedAt, rows);
          return appends.length === 1 && appends[0]!.events.length === 1
            ? [this.appendOne(appends[0]!, recordedAt, rows)]
            : this.appendInSavepoint(appends, recordedAt, rows);
        } catch (error) {
          // Its savepoint (or its single INSERT) rolled back: so do its rows.
          rows.length = before;
          if (error instanceof WrongExpectedRevisionError || error instanceof DuplicateEventIdError || error instanceof SubjectKeyTakenError) return { error };
          throw error;
        }
      });
      // Read under the write lock: no other connection can commit before this transaction does.
      return { results, rows, version: this.dataVersion() };
    });
    // IMMEDIATE takes the write lock up front. Held by another connection, it is not waited for
    // inside SQLite (see writeLock.ts): flush tries again a moment later while the loop serves, and
    // the appends arriving meanwhile join the group.
    this.appendBatch = (batch, waitForLock) =>
      waitForLock ? batchTransaction.immediate(batch) : withoutLockWait(db, () => batchTransaction.immediate(batch));
  }

  append(stream: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('The event store is closed'));
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    return new Promise((resolve, reject) => {
      this.enqueue({ appends: [{ stream, events, expected }], resolve: (results) => resolve(results[0]!), reject });
    });
  }

  /** All or nothing, in the same group commit as the appends around it (see the port). */
  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    return this.request(appends);
  }

  /**
   * `appendToStreams` keeping new subjects' key texts in the same commit (see the
   * port). The connection writes with `secure_delete` on (openSqliteDatabase): a page
   * split by the rows added moves keys, and leaves no copy of them in the page's free
   * space.
   */
  appendToStreamsWithKeys(appends: readonly StreamAppend[], keys: ReadonlyMap<string, string>): Promise<AppendResult[]> {
    return this.request(appends, keys);
  }

  /** Checks the appends, then queues them (with the keys to keep beside them) for the next group commit. */
  private request(appends: readonly StreamAppend[], keys?: ReadonlyMap<string, string>): Promise<AppendResult[]> {
    if (this.closed) return Promise.reject(new Error('The event store is closed'));
    const problem = invalidStreamAppends(appends);
    if (problem) return Promise.reject(new Error(problem));
    return new Promise((resolve, reject) => this.enqueue(keys ? { appends, keys, resolve, reject } : { appends, resolve, reject }));
  }

  private enqueue(request: PendingAppend): void {
    this.pending.push(request);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** One group commit of what is pending; `waitForLock`: on the connection's busy timeout (closing). */
  private flush(waitForLock = false): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    let outcome: ReturnType<typeof this.appendBatch>;
    try {
      outcome = this.appendBatch(batch, waitForLock);
    } catch (error) {
      // Another connection holds the write lock: the group tries again shortly, with what joins it.
      if (!waitForLock && this.lockRetry.retryLater(error, () => this.flush())) {
        this.pending = batch.concat(this.pending);
        this.flushScheduled = true;
        return;
      }
      // The whole transaction failed (disk full, the lock not had within the wait): nothing was written.
      const failure = translateSqliteError(error);
      batch.forEach((request) => request.reject(failure));
      return;
    }
    this.lockRetry.succeeded();
    const { results } = outcome;
    this.remember(outcome.rows, outcome.version);
    let committed = false;
    batch.forEach((request, i) => {
      const result = results[i]!;
      if ('error' in result) request.reject(result.error);
      else {
        committed = true;
        request.resolve(result);
      }
    });
    this.alarms.forEach((alarm) => alarm.wake());
    if (committed) this.appendListeners.forEach((listener) => listener());
  }

  /**
   * Keeps the rows a commit of this process wrote, after those of its previous
   * commit when no other connection wrote between them (their positions follow on),
   * else in their place.
   */
  private remember(rows: Row[], version: number): void {
    if (rows.length === 0) return;
    rows.sort((a, b) => a.position - b.position);
    for (let i = 1; i < rows.length; i++) {
      if (rows[i]!.position !== rows[i - 1]!.position + 1) {
        this.recent = [];
        return;
      }
    }
    const tail = this.recent[this.recent.length - 1];
    if (tail === undefined || rows[0]!.position !== tail.position + 1) this.recent = rows;
    else {
      for (const row of rows) this.recent.push(row);
      if (this.recent.length > 2 * RECENT_ROWS) this.recent = this.recent.slice(-RECENT_ROWS);
    }
    this.versionAtRecentTail = version;
  }

  /** After each group commit that stored something (not one whose every append was refused). */
  onAppended(listener: () => void): () => void {
    this.appendListeners.add(listener);
    return () => this.appendListeners.delete(listener);
  }

  /** Idle subscriptions check the file's data version now: another process says it committed. */
  lookNow(): void {
    this.alarms.forEach((alarm) => alarm.wake());
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const from = options.fromRevision ?? 0;
    const rows =
      options.maxCount === undefined
        ? this.statements.readStream.all(stream, from)
        : this.statements.readStreamLimited.all(stream, from, options.maxCount);
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.readAllSync(options.after ?? null, options.maxCount ?? -1);
  }

  /** `version`: the file's data version, when the caller has just read it. */
  private readAllSync(after: Position | null, maxCount: number, version = -1): RecordedEvent[] {
    const from = after === null ? 0 : Number(after);
    const recent = this.recent;
    if (recent.length > 0) {
      const first = recent[0]!.position;
      const last = recent[recent.length - 1]!.position;
      if (from >= first - 1 && from <= last) {
        // Every row after `from` up to `last` is in `recent` (contiguous positions)...
        const start = from + 1 - first;
        const end = maxCount < 0 ? recent.length : Math.min(recent.length, start + maxCount);
        // ...and none after it, unless another connection committed since this process wrote it.
        if (end < recent.length || (version < 0 ? this.dataVersion() : version) === this.versionAtRecentTail) {
          return recent.slice(start, end).map(toRecorded);
        }
      }
    }
    return this.statements.readAll.all(from, maxCount).map(toRecorded);
  }

  /** Moves whenever another connection (another process) commits to the file. */
  private dataVersion(): number {
    return this.statements.dataVersion.get()!;
  }

  async headPosition(): Promise<Position | null> {
    const { position } = this.statements.headPosition.get()!;
    return position === null ? null : String(position);
  }

  async eventIdAt(position: Position): Promise<string | null> {
    const at = Number(position);
    return Number.isSafeInteger(at) ? (this.statements.idAt.get(at) ?? null) : null;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const alarm = new Alarm();
    const maxBatchSize = options.maxBatchSize ?? 1000;
    let position = options.after;
    let stopped = false;
    this.alarms.add(alarm);

    /** One last batch, once, for a stop that came between a wake and its read (a failure is reported, not retried). */
    const handleLast = async (): Promise<void> => {
      if (this.closed) return;
      const batch = this.readAllSync(position, maxBatchSize);
      if (batch.length === 0) return;
      try {
        await options.handle(batch);
        position = batch[batch.length - 1]!.position;
      } catch (error) {
        options.onError?.(error, 1);
      }
    };

    const run = async (): Promise<void> => {
      // A local file: nothing to connect to.
      notify(options.onConnected);
      while (!stopped) {
        // Taken before the read: a commit of another process after it moves the version.
        const version = this.closed ? 0 : this.dataVersion();
        const batch = this.closed ? [] : this.readAllSync(position, maxBatchSize, version);
        if (batch.length === 0) {
          // Until an append of this process wakes it, or another process commits to the file.
          for (let woken = false; !woken && !stopped; ) {
            woken = await alarm.sleep(this.pollIntervalMs);
            // Woken by a commit: the appends it resolved answer first (their continuations run and
            // the responses are written), then the new rows are read, a turn of the loop later
            // (decision 89).
            if (woken) {
              await new Promise<void>((resolve) => setImmediate(resolve));
              // A stop asked during that turn still gets the rows committed before it: they were
              // answered, and a graceful stop leaves the subscription at the head it was woken for.
              if (stopped) await handleLast();
            }
            if (woken || this.closed || this.dataVersion() !== version) break;
          }
          continue;
        }
        for (let attempt = 1; !stopped; attempt++) {
          try {
            await options.handle(batch);
            position = batch[batch.length - 1]!.position;
            // Reading and folding are synchronous: give I/O (requests to /health, /ready) a turn
            // between batches, so a long catch-up never starves the server.
            await new Promise<void>((resolve) => setImmediate(resolve));
            break;
          } catch (error) {
            options.onError?.(error, attempt);
            await alarm.sleep(backoffMs(attempt));
          }
        }
      }
    };
    const done = run();

    return {
      get position() {
        return position;
      },
      stop: async () => {
        stopped = true;
        alarm.wake();
        await done;
        this.alarms.delete(alarm);
      },
    };
  }

  async renameStreams(prefix: string, rename: (stream: string) => string): Promise<number> {
    if (this.closed) throw new Error('The event store is closed');
    // Through the index on (stream, revision): the streams of the prefix only.
    const renamed = this.db
      .transaction(() => {
        const name = `stream names: ${prefix}`;
        if (this.db.prepare('SELECT 1 FROM log_rewrites WHERE name = ? AND done_at IS NOT NULL').get(name) !== undefined) return 0;
        const streams = this.db
          .prepare<[string, string], { stream: string }>('SELECT DISTINCT stream FROM events WHERE stream >= ? AND stream < ?')
          .all(prefix, `${prefix}\u{10FFFF}`)
          .map((row) => row.stream)
          .filter((stream) => stream.startsWith(prefix));
        const update = this.db.prepare<[string, string]>('UPDATE events SET stream = ? WHERE stream = ?');
        let count = 0;
        for (const stream of streams) {
          const to = rename(stream);
          if (to === stream) continue;
          update.run(to, stream);
          count++;
        }
        this.db
          .prepare('INSERT INTO log_rewrites (name, changed, done_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET changed = excluded.changed, done_at = excluded.done_at')
          .run(name, count, new Date().toISOString());
        return count;
      })
      .immediate();
    // The rows this process keeps of the log's tail carry the names as they were.
    if (renamed > 0) this.recent = [];
    return renamed;
  }

  async rewriteEventData(
    name: string,
    maxCount: number,
    rewrite: (events: readonly RecordedEvent[]) => Promise<ReadonlyMap<string, RewrittenEvent>>,
  ): Promise<{ readonly looked: number; readonly changed: number }> {
    if (this.closed) throw new Error('The event store is closed');
    const progress = this.db.prepare<[string], { position: string | null; done_at: string | null }>('SELECT position, done_at FROM log_rewrites WHERE name = ?').get(name);
    if (progress?.done_at) return { looked: 0, changed: 0 };
    const events = this.readAllSync(progress?.position ?? null, maxCount);
    const changes = events.length === 0 ? new Map<string, RewrittenEvent>() : await rewrite(events);
    const update = this.db.prepare<[string, string, string]>('UPDATE events SET data = ?, metadata = ? WHERE id = ?');
    const record = this.db.prepare<[string, string | null, number, string | null]>(
      `INSERT INTO log_rewrites (name, position, changed, done_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET position = coalesce(excluded.position, position), changed = changed + excluded.changed, done_at = excluded.done_at`,
    );
    this.db
      .transaction(() => {
        for (const [id, { data, metadata }] of changes) update.run(JSON.stringify(data), JSON.stringify(metadata), id);
        const last = events[events.length - 1];
        record.run(name, last ? last.position : null, changes.size, last ? null : new Date().toISOString());
      })
      .immediate();
    // The rows this process keeps of the log's tail hold the data as it was.
    if (changes.size > 0) this.recent = [];
    return { looked: events.length, changed: changes.size };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.lockRetry.cancel();
    // The last appends wait for the lock as long as the busy timeout says: no later try is coming.
    if (this.pending.length > 0) this.flush(true);
    this.closed = true;
    this.alarms.forEach((alarm) => alarm.wake());
    if (this.ownsDatabase) this.db.close();
  }
}

const matches = (expected: ExpectedRevision, actual: number | 'no_stream'): boolean => {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === 'no_stream';
    case 'stream_exists':
      return actual !== 'no_stream';
    default:
      return actual === expected;
  }
};
