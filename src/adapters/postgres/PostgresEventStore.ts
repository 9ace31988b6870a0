import pg from 'pg';
import {
  invalidStreamAppends,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type RewrittenEvent,
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
} from '../../application/ports/EventStore.js';
import type { Alarm } from '../../application/subscriptions/Alarm.js';
import type { EventMetadata } from '../../shared/EventMetadata.js';
import { isPosition, type Position } from '../../shared/Position.js';
import { followLog, type LogPage } from './followLog.js';
import {
  appendGroupKeys,
  appendGroupParameters,
  invalidAppend,
  nextAppendGroup,
  recordedEvents,
  settleAppendGroup,
  type AppendOutcome,
  type PendingAppend,
} from './logAppendGroup.js';
import { LOG_CHANNEL } from './logMigrations.js';
import { LogNotifications } from './LogNotifications.js';
import { inTransaction, preparedQuery, preparedReadQuery, query, readQuery } from './postgresPool.js';
import { StoreUnavailableError } from '../../application/ports/StoreUnavailableError.js';

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

/** Appends of one group commit at most; the rest wait for the next one. */
const MAX_APPENDS_PER_COMMIT = 500;

/** How often an append whose commit's outcome was unknown, and found not stored, is sent again. */
const MAX_RESENDS = 3;

/**
 * How long a group commit whose connection broke tries to find out whether it was stored
 * (the log read by its events' ids, on new connections) before its appends fail as
 * interrupted: about a failover's time, short of an HTTP client's patience.
 */
const OUTCOME_CHECK_MS = 12_000;

/** This process's own events kept for its subscriptions at most (see `OwnEvents`). */
const OWN_EVENTS_KEPT = 4_096;

/**
 * The events this process's last commits stored, by position, so that its subscriptions
 * read them from memory rather than back from the log. A page after position p comes from
 * here only when p is here too (the id the subscription handled there is checked against
 * it, as a read of the log checks it) and so is p + 1: positions have no gaps, so when
 * p + 1 is this process's own, no commit of another process lies between. Anything else
 * is read from the log, as before.
 *
 * A commit's events are kept only as a continuation of what is held: when the log says
 * the commit follows another event than the one held at the position before it, or takes
 * positions held already (the log was put back to an older copy under this process),
 * everything held is forgotten first, so that a subscription reads the log and finds out.
 */
class OwnEvents {
  private readonly byPosition = new Map<string, RecordedEvent>();

  add(events: readonly RecordedEvent[], before: string | null): void {
    const first = events[0];
    if (!first) return;
    const previous = this.byPosition.get(String(BigInt(first.position) - 1n));
    if ((previous && previous.id !== before) || events.some((event) => this.byPosition.has(event.position))) this.byPosition.clear();
    for (const event of events) this.byPosition.set(event.position, event);
    // A Map iterates in insertion order: the oldest go first.
    for (const position of this.byPosition.keys()) {
      if (this.byPosition.size <= OWN_EVENTS_KEPT) break;
      this.byPosition.delete(position);
    }
  }

  /** The page after `after` from memory (its head: the last event of it), or null when it must be read. */
  pageAfter(after: Position | null, maxCount: number): LogPage | null {
    if (after === null) return null;
    const at = this.byPosition.get(after);
    if (!at) return null;
    const events: RecordedEvent[] = [];
    for (let next = BigInt(after) + 1n; events.length < maxCount; next += 1n) {
      const event = this.byPosition.get(String(next));
      if (!event) break;
      events.push(event);
    }
    if (events.length === 0) return null;
    return { events, head: events[events.length - 1]!.position, atId: at.id };
  }

  clear(): void {
    this.byPosition.clear();
  }
}

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
  /**
   * How long a group commit whose connection broke (a failover) tries to find out
   * whether it was stored before its appends fail as interrupted. Default 12 s.
   */
  readonly outcomeCheckMs?: number;
  /** Told when a group commit's outcome was unknown, and what the log said of it. */
  readonly onUnknownOutcome?: (what: { readonly appends: number; readonly stored: number; readonly resent: number; readonly unchecked: number }) => void;
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
  /** The highest head the subscriptions were woken for (see wakeFor). */
  private wokenFor = 0n;
  private readonly appendListeners = new Set<() => void>();
  private readonly own = new OwnEvents();
  /** How often each pending append was sent again after an unknown outcome (see `settleUnknown`). */
  private readonly resends = new WeakMap<PendingAppend, number>();
  /**
   * The heads notifications told of while a commit of this process was under way (null:
   * none is): its notification may come in before its answer does, and a subscription it
   * woke then would read the log for the events the answer is about to hand it.
   */
  private heardWhileCommitting: (string | null)[] | null = null;
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
    return this.enqueue(appends);
  }

  /**
   * `appendToStreams`, keeping new subjects' key texts in the same transaction
   * (`log_append_keyed`, see the port): a subject that has a key already, or was
   * erased, refuses the append with `SubjectKeyTakenError`, and nothing of it is kept.
   */
  appendToStreamsWithKeys(appends: readonly StreamAppend[], keys: ReadonlyMap<string, string>): Promise<AppendResult[]> {
    return this.enqueue(appends, keys);
  }

  /** Checks the appends, then queues them (with the keys to keep beside them) for the next group commit. */
  private enqueue(appends: readonly StreamAppend[], keys?: ReadonlyMap<string, string>): Promise<AppendResult[]> {
    const given = appends.flatMap((append) => append.events.flatMap((event) => (event.recordedAt === undefined ? [] : [[event.id, event.recordedAt] as const])));
    if (given.length === 0) return this.enqueueAppends(appends, keys);
    // An import's events keep the times they were first recorded at: set once they are stored (an import runs alone).
    return this.enqueueAppends(appends, keys).then(async (results) => {
      await query(this.pool, 'UPDATE log_events SET recorded_at = given.at FROM unnest($1::text[], $2::timestamptz[]) AS given (id, at) WHERE log_events.id = given.id', [
        given.map(([id]) => id),
        given.map(([, at]) => at),
      ]);
      return results;
    });
  }

  private enqueueAppends(appends: readonly StreamAppend[], keys?: ReadonlyMap<string, string>): Promise<AppendResult[]> {
    if (this.closed) return Promise.reject(new Error('The event store is closed'));
    const problem = invalidStreamAppends(appends);
    if (problem) return Promise.reject(new Error(problem));
    const invalid = invalidAppend(appends);
    if (invalid) return Promise.reject(invalid);
    return new Promise((resolve, reject) => {
      this.pending.push(keys ? { appends, keys, resolve, reject } : { appends, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  /** Commits what is pending, group after group (see nextAppendGroup), until nothing is left. */
  private async flush(): Promise<void> {
    // The appends of this turn of the event loop join the first group.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.pending.length > 0) {
      const { group, later } = nextAppendGroup(this.pending, MAX_APPENDS_PER_COMMIT);
      this.pending = later;
      await this.commit(group);
    }
    this.flushing = null;
  }

  /** One group commit: each append's result, or every append's failure when the commit failed. */
  private async commit(sent: readonly PendingAppend[]): Promise<void> {
    let group = sent;
    let outcomes: AppendOutcome[];
    const parameters = appendGroupParameters(group);
    const keys = appendGroupKeys(group);
    this.heardWhileCommitting = [];
    try {
      try {
        const { rows } = keys
          ? await preparedQuery<{ outcomes: AppendOutcome[] }>(
              this.pool,
              'SELECT log_append_keyed($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS outcomes',
              [this.lockTimeout, ...parameters, ...keys],
            )
          : await preparedQuery<{ outcomes: AppendOutcome[] }>(this.pool, 'SELECT log_append($1, $2, $3, $4, $5, $6, $7, $8, $9) AS outcomes', [
              this.lockTimeout,
              ...parameters,
            ]);
        outcomes = rows[0]!.outcomes;
      } catch (error) {
        if (error instanceof StoreUnavailableError && error.reason === 'interrupted') {
          // The connection broke during the commit (a failover): whether it was stored is unknown.
          this.own.clear();
          await this.settleUnknown(group, error);
          return;
        }
        // Nothing of the group is stored: every append fails (translated where nothing was written).
        group.forEach((request) => request.reject(error));
        return;
      }
      // A resent append refused as a duplicate of its own event: its first commit was stored after
      // all (it ended after the log was read). It is settled from the log, as an unknown outcome is.
      const own = new Set(
        outcomes.flatMap((outcome, i) => ('refused' in outcome && outcome.refused === 'duplicate' && this.resends.has(group[i]!) ? [i] : [])),
      );
      if (own.size > 0) {
        this.own.clear();
        const sentBefore = group.filter((_, i) => own.has(i));
        const left = await this.settleFromLog(sentBefore);
        for (const request of left ?? sentBefore) request.reject(new StoreUnavailableError('interrupted', 1));
        group = group.map((request, i) => (own.has(i) ? { ...request, resolve: () => undefined, reject: () => undefined } : request));
      }
      // Kept before anyone is told: the subscriptions this commit wakes find its events here.
      const stored = recordedEvents(group, outcomes, parameters);
      if (stored === null) this.own.clear();
      else this.own.add(stored.events, stored.before);
      const head = settleAppendGroup(group, outcomes);
      if (head !== null) {
        this.wakeFor(head);
        this.appendListeners.forEach((listener) => listener());
      }
    } finally {
      this.hearHeld();
    }
  }

  /**
   * A group commit whose connection broke before its answer came: it was stored whole or not at
   * all (one transaction). The log is read by the group's event ids, on new connections, until
   * it answers (at most `outcomeCheckMs`). Appends found stored resolve with the log's positions;
   * the others were not stored (or refused in a commit that stored others), and are sent again
   * with their expected revisions, in front of what waits (at most MAX_RESENDS times, then they
   * fail as busy: nothing was stored). When the log cannot be read in time, they fail as
   * interrupted (503 STORE_INTERRUPTED).
   */
  private async settleUnknown(group: readonly PendingAppend[], error: StoreUnavailableError): Promise<void> {
    const left = await this.settleFromLog(group);
    if (left === null) {
      this.options.onUnknownOutcome?.({ appends: group.length, stored: 0, resent: 0, unchecked: group.length });
      group.forEach((request) => request.reject(error));
      return;
    }
    const again: PendingAppend[] = [];
    for (const request of left) {
      const resends = (this.resends.get(request) ?? 0) + 1;
      if (resends > MAX_RESENDS) request.reject(new StoreUnavailableError('busy', 1, { cause: error }));
      else {
        this.resends.set(request, resends);
        again.push(request);
      }
    }
    this.options.onUnknownOutcome?.({ appends: group.length, stored: group.length - left.length, resent: again.length, unchecked: 0 });
    this.pending = [...again, ...this.pending];
    if (group.length > left.length) this.lookNow();
  }

  /**
   * Resolves the appends of `group` whose events the log holds (each stream append's last
   * event gives its revision and position); answers those it does not hold, or null when the
   * log could not be read within `outcomeCheckMs`.
   */
  private async settleFromLog(group: readonly PendingAppend[]): Promise<PendingAppend[] | null> {
    const ids = group.flatMap((request) => request.appends.flatMap((append) => append.events.map((event) => event.id)));
    const deadline = Date.now() + (this.options.outcomeCheckMs ?? OUTCOME_CHECK_MS);
    let found: Map<string, { revision: number; position: string }> | null = null;
    for (let attempt = 1; found === null; attempt++) {
      try {
        const { rows } = await readQuery<{ id: string; revision: number; position: string }>(
          this.pool,
          'SELECT id, revision, position FROM log_events WHERE id = ANY($1::text[])',
          [ids],
        );
        found = new Map(rows.map((row) => [row.id, row]));
      } catch {
        if (this.closed || Date.now() >= deadline) return null;
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 100 * 2 ** attempt)));
      }
    }
    const left: PendingAppend[] = [];
    for (const request of group) {
      const stored = request.appends.map((append) => found.get(append.events[append.events.length - 1]!.id));
      if (stored.every((row) => row !== undefined)) {
        this.resends.delete(request);
        request.resolve(stored.map((row) => ({ nextRevision: row!.revision, position: row!.position })));
      } else left.push(request);
    }
    return left;
  }

  /** A notification: heard now, or once the commit under way has answered (see `heardWhileCommitting`). */
  private heard(head: string | null): void {
    if (this.heardWhileCommitting) this.heardWhileCommitting.push(head);
    else this.wakeFor(head);
  }

  private hearHeld(): void {
    const held = this.heardWhileCommitting ?? [];
    this.heardWhileCommitting = null;
    held.forEach((head) => this.wakeFor(head));
  }

  /**
   * Wakes the subscriptions for a commit that took the log's head to `head` (this
   * process's own, or one a notification tells of), unless they were woken for that
   * head or a later one already: each commit of this process's appends is heard of
   * twice, once as it returns and once as its notification comes back. Woken after a
   * commit, a subscription reads through it (a reader that sees a position sees every
   * position before it). An unknown head (listening started or stopped) wakes them
   * and forgets the head they were woken for.
   */
  private wakeFor(head: string | null): void {
    if (head !== null && /^[0-9]+$/.test(head)) {
      const at = BigInt(head);
      if (at <= this.wokenFor) return;
      this.wokenFor = at;
    } else {
      this.wokenFor = 0n;
    }
    this.lookNow();
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
    const { rows } = await preparedReadQuery<EventRow>(
      this.pool,
      `SELECT ${COLUMNS} FROM log_events WHERE stream = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
      [stream, options.fromRevision ?? 0, options.maxCount ?? null],
    );
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = asStoredPosition(options.after ?? null);
    if (after === null) return [];
    const { rows } = await readQuery<EventRow>(this.pool, `SELECT ${COLUMNS} FROM log_events WHERE position > $1 ORDER BY position LIMIT $2`, [
      after,
      options.maxCount ?? null,
    ]);
    return rows.map(toRecorded);
  }

  async headPosition(): Promise<Position | null> {
    const { rows } = await readQuery<{ head: string | null }>(this.pool, 'SELECT max(position) AS head FROM log_events');
    return rows[0]?.head ?? null;
  }

  async eventIdAt(position: Position): Promise<string | null> {
    const at = asStoredPosition(position);
    if (at === null || position === '0') return null;
    const { rows } = await readQuery<{ id: string }>(this.pool, 'SELECT id FROM log_events WHERE position = $1', [at]);
    return rows[0]?.id ?? null;
  }

  /** A page after `after`, with the head and the id at `after`, read in one statement (one snapshot). */
  private async readPage(after: Position | null, maxCount: number): Promise<LogPage> {
    const at = asStoredPosition(after);
    if (at === null) return { events: [], head: await this.headPosition(), atId: null };
    const { rows } = await preparedReadQuery<PageRow>(
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

  /** Follows the log from `options.after` (see followLog), woken by every commit this store hears of. */
  subscribeToAll(options: SubscribeOptions): Subscription {
    this.stopListening ??= this.notifications.add((head) => this.heard(head));
    return followLog(options, {
      readPage: (after, maxCount) => Promise.resolve(this.own.pageAfter(after, maxCount) ?? this.readPage(after, maxCount)),
      pollIntervalMs: this.pollIntervalMs,
      closed: () => this.closed,
      alarms: this.alarms,
    });
  }

  async renameStreams(prefix: string, rename: (stream: string) => string): Promise<number> {
    // Names bound as values, never inlined in SQL text (they may hold what the rename takes out).
    return inTransaction(this.pool, async (client) => {
      // Once per prefix; the table lock keeps appends out (they wait) while the streams are read and renamed.
      const name = `stream names: ${prefix}`;
      const done = async () => (await client.query('SELECT 1 FROM log_rewrites WHERE name = $1 AND done_at IS NOT NULL', [name])).rowCount !== 0;
      if (await done()) return 0;
      await client.query('LOCK TABLE log_events IN EXCLUSIVE MODE');
      if (await done()) return 0;
      const { rows } = await client.query<{ stream: string }>('SELECT DISTINCT stream FROM log_events WHERE starts_with(stream, $1)', [prefix]);
      const renames = rows.map(({ stream }) => [stream, rename(stream)] as const).filter(([from, to]) => from !== to);
      await client.query(
        'INSERT INTO log_rewrites (name, changed, done_at) VALUES ($1, $2, now()) ON CONFLICT (name) DO UPDATE SET changed = excluded.changed, done_at = excluded.done_at',
        [name, renames.length],
      );
      if (renames.length === 0) return 0;
      await client.query(
        'UPDATE log_events AS e SET stream = r.to_name FROM unnest($1::text[], $2::text[]) AS r(from_name, to_name) WHERE e.stream = r.from_name',
        [renames.map(([from]) => from), renames.map(([, to]) => to)],
      );
      return renames.length;
    });
  }

  async rewriteEventData(
    name: string,
    maxCount: number,
    rewrite: (events: readonly RecordedEvent[]) => Promise<ReadonlyMap<string, RewrittenEvent>>,
  ): Promise<{ readonly looked: number; readonly changed: number }> {
    const { rows } = await this.pool.query<{ position: string | null; done_at: Date | null }>('SELECT position, done_at FROM log_rewrites WHERE name = $1', [name]);
    if (rows[0]?.done_at) return { looked: 0, changed: 0 };
    const events = await this.readAll({ after: rows[0]?.position ?? null, maxCount });
    const changes = events.length === 0 ? new Map<string, RewrittenEvent>() : await rewrite(events);
    const last = events[events.length - 1];
    // Values bound, never inlined in SQL text (they are what the rewrite takes out).
    await inTransaction(this.pool, async (client) => {
      if (changes.size > 0) {
        const ids = [...changes.keys()];
        await client.query(
          `UPDATE log_events AS e SET data = c.data::json, metadata = c.metadata::json
           FROM unnest($1::text[], $2::text[], $3::text[]) AS c(id, data, metadata) WHERE e.id = c.id`,
          [ids, ids.map((id) => JSON.stringify(changes.get(id)!.data)), ids.map((id) => JSON.stringify(changes.get(id)!.metadata))],
        );
      }
      await client.query(
        `INSERT INTO log_rewrites (name, position, changed, done_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET position = coalesce(excluded.position, log_rewrites.position),
           changed = log_rewrites.changed + excluded.changed, done_at = excluded.done_at`,
        [name, last ? last.position : null, changes.size, last ? null : new Date()],
      );
    });
    return { looked: events.length, changed: changes.size };
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
