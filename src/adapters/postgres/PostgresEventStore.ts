import pg from 'pg';
import {
  DuplicateEventIdError,
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
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
} from '../../application/ports/EventStore.js';
import { Alarm, backoffMs } from '../../application/Alarm.js';
import { LogReplacedError } from '../../application/LogReplacedError.js';
import type { EventMetadata } from '../../shared/EventMetadata.js';
import { isPosition, type Position } from '../../shared/Position.js';
import { LOG_CHANNEL } from './logMigrations.js';
import { LogNotifications } from './LogNotifications.js';
import { query } from './postgresPool.js';

interface EventRow {
  position: string;
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  recorded_at: Date;
}

/** A page a subscription reads: its events, the log's head and the event at the position it reads after, in one snapshot. */
interface PageRow extends Partial<EventRow> {
  head: string | null;
  at_id: string | null;
}

/** What `log_append` answers for one append: each stream's outcome, or why it was refused. */
type AppendOutcome =
  | ReadonlyArray<{ readonly revision: number; readonly position: string }>
  | { readonly refused: 'revision'; readonly stream: string; readonly actual: number | null }
  | { readonly refused: 'duplicate'; readonly eventId: string };

/** One append or multi-stream append waiting for the next group commit. */
interface PendingAppend {
  readonly appends: readonly StreamAppend[];
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

const COLUMNS = 'position, id, stream, revision, type, data, metadata, recorded_at';

const toRecorded = (row: EventRow): RecordedEvent => ({
  id: row.id,
  stream: row.stream,
  revision: row.revision,
  position: row.position,
  type: row.type,
  data: row.data,
  metadata: row.metadata,
  recordedAt: row.recorded_at.toISOString(),
});

/** The largest position a bigint column holds. */
const MAX_POSITION = 9_223_372_036_854_775_807n;

const asStoredPosition = (position: Position | null): string | null => {
  if (position === null) return '0';
  return isPosition(position) && BigInt(position) <= MAX_POSITION ? position : null;
};

const checkExpected = (expected: ExpectedRevision): void => {
  if (typeof expected === 'number' && (!Number.isSafeInteger(expected) || expected < 0)) {
    throw new RangeError(`Invalid expected revision ${expected}`);
  }
};

/** An event id given twice in one append, or null. */
const repeatedEventId = (appends: readonly StreamAppend[]): string | null => {
  const ids = new Set<string>();
  for (const { events } of appends) {
    for (const { id } of events) {
      if (ids.has(id)) return id;
      ids.add(id);
    }
  }
  return null;
};

/** Appends of one group commit at most; the rest wait for the next one. */
const MAX_APPENDS_PER_COMMIT = 500;

export interface PostgresEventStoreOptions {
  /**
   * How often an idle subscription reads the log when no notification came
   * (LISTEN/NOTIFY wakes it at once on every commit, from any process). Default 1 s.
   */
  readonly pollIntervalMs?: number;
  /**
   * How long a group commit waits for another one to end (another process
   * appending) before its appends fail (503 STORE_BUSY). Default 10 s.
   */
  readonly lockWaitMs?: number;
  /** Ends the pool when the store closes (the store that `openPostgresStores` closes last). */
  readonly ownsPool?: boolean;
  /** Told when the connection that listens for commits fails; subscriptions poll until it is back. */
  readonly onListenFailure?: (error: unknown, attempt: number) => void;
}

/**
 * The event store on PostgreSQL (`log_events`, see logMigrations.ts).
 *
 * One writer at a time: `log_append` holds the `log_head` row from its first
 * statement to its commit, so appends commit in the order of their positions, and
 * positions have no gaps. A reader never sees position n + 1 before position n,
 * and a subscription that reads `position > checkpoint` skips nothing (the record
 * in docs/contributors/decisions says why this, and not a sequence with a gap check).
 *
 * Appends are group-committed: those requested during one turn of the event loop,
 * and those that arrive while a commit is under way, go together in the next call
 * to `log_append`: one round trip and one commit for all of them, each with its own
 * checks and its own success or failure.
 *
 * Subscriptions read pages by position. Every commit notifies the log's channel
 * (NOTIFY, delivered at commit): one LISTEN connection per store wakes its idle
 * subscriptions at once, and they also poll (every `pollIntervalMs`) in case that
 * connection is down. Each page read also gives the id of the event at the
 * subscription's position: when it is not the one handled there (the database was
 * put back to an older copy), the subscription stops with `LogReplacedError`
 * rather than skip the events that take those positions again.
 */
export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private pending: PendingAppend[] = [];
  private flushing: Promise<void> | null = null;
  private readonly alarms = new Set<Alarm>();
  private readonly appendListeners = new Set<() => void>();
  private readonly notifications: LogNotifications;
  private stopListening: (() => void) | null = null;
  private readonly pollIntervalMs: number;
  private readonly lockTimeout: string;
  private closed = false;

  constructor(
    readonly pool: pg.Pool,
    private readonly options: PostgresEventStoreOptions = {},
  ) {
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.lockTimeout = `${options.lockWaitMs ?? 10_000}ms`;
    this.notifications = new LogNotifications(() => new pg.Client(pool.options), LOG_CHANNEL, options.onListenFailure);
  }

  append(stream: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    return this.appendToStreams([{ stream, events, expected }]).then((results) => results[0]!);
  }

  /** All or nothing, in the same group commit as the appends around it (see the port). */
  appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    if (this.closed) return Promise.reject(new Error('The event store is closed'));
    const problem = invalidStreamAppends(appends);
    if (problem) return Promise.reject(new Error(problem));
    try {
      appends.forEach(({ expected }) => checkExpected(expected));
    } catch (error) {
      return Promise.reject(error);
    }
    const repeated = repeatedEventId(appends);
    if (repeated !== null) return Promise.reject(new DuplicateEventIdError(repeated));
    return new Promise((resolve, reject) => {
      this.pending.push({ appends, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Commits what is pending, group after group, until nothing is left. */
  private async flush(): Promise<void> {
    // The appends of this turn of the event loop join the first group.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.pending.length > 0) await this.commit(this.nextGroup());
    this.flushing = null;
  }

  /**
   * The appends of the next group commit, in order: each append that shares a
   * stream or an event id with an append before it waits for the next group
   * (`log_append` checks every append of a group against the log as it was before
   * the group), and so does every later append that shares one with it, so that
   * appends to one stream keep their order.
   */
  private nextGroup(): PendingAppend[] {
    const group: PendingAppend[] = [];
    const later: PendingAppend[] = [];
    const seen = new Set<string>();
    for (const request of this.pending) {
      const keys = request.appends.flatMap(({ stream, events }) => [`stream:${stream}`, ...events.map(({ id }) => `event:${id}`)]);
      if (group.length < MAX_APPENDS_PER_COMMIT && keys.every((key) => !seen.has(key))) group.push(request);
      else later.push(request);
      keys.forEach((key) => seen.add(key));
    }
    this.pending = later;
    return group;
  }

  /** One group commit: each append's result, or every append's failure when the commit failed. */
  private async commit(batch: readonly PendingAppend[]): Promise<void> {
    const columns = { appends: [] as number[], streams: [] as string[], expected: [] as string[], counts: [] as number[] };
    const events = { ids: [] as string[], types: [] as string[], data: [] as string[], metadata: [] as string[] };
    batch.forEach(({ appends }, i) =>
      appends.forEach(({ stream, expected, events: appended }) => {
        columns.appends.push(i + 1);
        columns.streams.push(stream);
        columns.expected.push(String(expected));
        columns.counts.push(appended.length);
        for (const { id, type, data, metadata } of appended) {
          events.ids.push(id);
          events.types.push(type);
          events.data.push(JSON.stringify(data ?? null));
          events.metadata.push(JSON.stringify(metadata));
        }
      }),
    );
    let outcomes: AppendOutcome[];
    try {
      const { rows } = await query<{ outcomes: AppendOutcome[] }>(this.pool, 'SELECT log_append($1, $2, $3, $4, $5, $6, $7, $8, $9) AS outcomes', [
        this.lockTimeout,
        columns.appends,
        columns.streams,
        columns.expected,
        columns.counts,
        events.ids,
        events.types,
        events.data,
        events.metadata,
      ]);
      outcomes = rows[0]!.outcomes;
    } catch (error) {
      // Nothing of the group is known to be stored: every append fails (translated where nothing was written).
      batch.forEach((request) => request.reject(error));
      return;
    }
    let committed = false;
    batch.forEach((request, i) => {
      const outcome = outcomes[i]!;
      if ('refused' in outcome) {
        request.reject(refusal(outcome, request.appends));
        return;
      }
      committed = true;
      request.resolve(outcome.map(({ revision, position }) => ({ nextRevision: revision, position })));
    });
    if (committed) {
      this.alarms.forEach((alarm) => alarm.wake());
      this.appendListeners.forEach((listener) => listener());
    }
  }

  /** After each group commit that stored something. */
  onAppended(listener: () => void): () => void {
    this.appendListeners.add(listener);
    return () => this.appendListeners.delete(listener);
  }

  /** Idle subscriptions read the log now (another process says it appended). */
  lookNow(): void {
    this.alarms.forEach((alarm) => alarm.wake());
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { rows } = await query<EventRow>(
      this.pool,
      `SELECT ${COLUMNS} FROM log_events WHERE stream = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
      [stream, options.fromRevision ?? 0, options.maxCount ?? null],
    );
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = asStoredPosition(options.after ?? null);
    if (after === null) return [];
    const { rows } = await query<EventRow>(this.pool, `SELECT ${COLUMNS} FROM log_events WHERE position > $1 ORDER BY position LIMIT $2`, [
      after,
      options.maxCount ?? null,
    ]);
    return rows.map(toRecorded);
  }

  async headPosition(): Promise<Position | null> {
    const { rows } = await query<{ head: string | null }>(this.pool, 'SELECT max(position) AS head FROM log_events');
    return rows[0]?.head ?? null;
  }

  async eventIdAt(position: Position): Promise<string | null> {
    const at = asStoredPosition(position);
    if (at === null || position === '0') return null;
    const { rows } = await query<{ id: string }>(this.pool, 'SELECT id FROM log_events WHERE position = $1', [at]);
    return rows[0]?.id ?? null;
  }

  /** A page after `after`, with the head and the id at `after`, read in one statement (one snapshot). */
  private async readPage(after: Position | null, maxCount: number): Promise<{ events: RecordedEvent[]; head: Position | null; atId: string | null }> {
    const at = asStoredPosition(after);
    if (at === null) return { events: [], head: await this.headPosition(), atId: null };
    const { rows } = await query<PageRow>(
      this.pool,
      `SELECT h.head, h.at_id, e.position, e.id, e.stream, e.revision, e.type, e.data, e.metadata, e.recorded_at
       FROM (SELECT (SELECT max(position) FROM log_events) AS head, (SELECT id FROM log_events WHERE position = $1) AS at_id) h
       LEFT JOIN LATERAL (SELECT ${COLUMNS} FROM log_events WHERE position > $1 ORDER BY position LIMIT $2) e ON true
       ORDER BY e.position`,
      [at, maxCount],
    );
    const first = rows[0];
    return {
      head: first?.head ?? null,
      atId: first?.at_id ?? null,
      events: rows.filter((row): row is PageRow & EventRow => row.position != null).map(toRecorded),
    };
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const alarm = new Alarm();
    const stopAlarm = new Alarm();
    const maxBatchSize = options.maxBatchSize ?? 1000;
    let position = options.after;
    /** The id of the event at `position` as it was handled (undefined: not known yet, for a position handed in). */
    let handledId: string | null | undefined = undefined;
    let stopped = false;
    let connected = false;
    let failures = 0;
    let replaced: LogReplacedError | null = null;
    this.alarms.add(alarm);
    this.stopListening ??= this.notifications.add(() => this.lookNow());

    const run = async (): Promise<void> => {
      while (!stopped) {
        if (replaced !== null) {
          // Stopped for good: said again now and then, never resumed (see LogReplacedError).
          failures += 1;
          notify(options.onDropped, replaced, failures);
          await stopAlarm.sleep(backoffMs(failures, 1_000, 60_000));
          continue;
        }
        if (this.closed) {
          await stopAlarm.sleep(this.pollIntervalMs);
          continue;
        }
        let page: Awaited<ReturnType<typeof this.readPage>>;
        try {
          page = await this.readPage(position, maxBatchSize);
        } catch (error) {
          connected = false;
          failures += 1;
          notify(options.onDropped, error, failures);
          await alarm.sleep(backoffMs(failures));
          continue;
        }
        if (position !== null) {
          handledId ??= page.atId;
          if (page.atId === null || page.atId !== handledId) {
            replaced = new LogReplacedError(position, handledId, page.atId, page.head);
            connected = false;
            failures = 0;
            continue;
          }
        }
        if (!connected) {
          connected = true;
          failures = 0;
          notify(options.onConnected);
        }
        if (page.events.length === 0) {
          await alarm.sleep(this.pollIntervalMs);
          continue;
        }
        for (let attempt = 1; !stopped; attempt++) {
          try {
            await options.handle(page.events);
            const last = page.events[page.events.length - 1]!;
            position = last.position;
            handledId = last.id;
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
        stopAlarm.wake();
        await done;
        this.alarms.delete(alarm);
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // The appends already asked for are committed (or fail) before the pool goes.
    await this.flushing;
    this.alarms.forEach((alarm) => alarm.wake());
    this.stopListening?.();
    await this.notifications.close();
    if (this.options.ownsPool) await this.pool.end();
  }
}

/** The port's error for an append that `log_append` refused. */
const refusal = (outcome: Extract<AppendOutcome, { readonly refused: string }>, appends: readonly StreamAppend[]): Error => {
  if (outcome.refused === 'duplicate') return new DuplicateEventIdError(outcome.eventId);
  const expected = appends.find((append) => append.stream === outcome.stream)?.expected ?? 'any';
  return new WrongExpectedRevisionError(outcome.stream, expected, outcome.actual ?? 'no_stream');
};
