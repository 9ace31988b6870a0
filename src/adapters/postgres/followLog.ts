import { notify, type RecordedEvent, type SubscribeOptions, type Subscription } from '../../application/ports/EventStore.js';
import { Alarm, backoffMs } from '../../application/subscriptions/Alarm.js';
import { LogReplacedError } from '../../application/subscriptions/LogReplacedError.js';
import type { Position } from '../../shared/Position.js';

/** A page of the log after a position, read in one snapshot with the head and the id of the event at that position. */
export interface LogPage {
  readonly events: readonly RecordedEvent[];
  readonly head: Position | null;
  readonly atId: string | null;
}

/** What a subscription needs of the store it follows. */
export interface LogPages {
  readPage(after: Position | null, maxCount: number): Promise<LogPage>;
  /** How long an idle subscription sleeps between reads unless woken (a commit, a stop). */
  readonly pollIntervalMs: number;
  /** True once the store is closed: the subscription reads no more. */
  closed(): boolean;
  /** Where the subscription's alarm goes while it runs: the store wakes it at every commit it hears of. */
  readonly alarms: Set<Alarm>;
}

/**
 * A catch-up subscription on pages of the log (see PostgresEventStore): reads the
 * page after its position, hands it to `handle` (when that fails: reads the page again
 * and hands it again, with backoff, until it succeeds), and sleeps when there is nothing new (the page was empty, or reached the
 * head it was read with) until a commit wakes it or the poll interval passes (woken, it
 * reads a turn of the event loop later, once the appends' callers have answered:
 * decision 133). A read that fails is told to `onDropped` and retried, with backoff.
 * Every page also says which event the log holds at the subscription's position; when
 * it is not the one handled there, or none, the subscription stops for good with
 * `LogReplacedError`, told to `onDropped` now and then, rather than hand out the events
 * that took those positions again.
 */
export const followLog = (options: SubscribeOptions, log: LogPages): Subscription => {
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
  log.alarms.add(alarm);

  /** The page after the position, or null when it could not be read (told, then waited for). */
  const read = async (): Promise<LogPage | null> => {
    try {
      return await log.readPage(position, maxBatchSize);
    } catch (error) {
      connected = false;
      failures += 1;
      notify(options.onDropped, error, failures);
      await alarm.sleep(backoffMs(failures));
      return null;
    }
  };

  /** Whether the log still holds, at the position, the event handled there. */
  const stillHolds = (page: LogPage): boolean => {
    if (position === null) return true;
    handledId ??= page.atId;
    if (page.atId !== null && page.atId === handledId) return true;
    replaced = new LogReplacedError(position, handledId, page.atId, page.head);
    connected = false;
    failures = 0;
    return false;
  };

  /**
   * Hands a page to `handle`. When it fails, the failure is told, the subscription waits (with
   * backoff) and reads the page again before the next try, never handing the same events again
   * unread: after a failover, a page read from the old primary may hold events the new one does
   * not have (committed there, never replicated), and the read again checks the position's event.
   */
  let handleFailures = 0;
  const handle = async (events: readonly RecordedEvent[]): Promise<void> => {
    try {
      await options.handle(events);
      const last = events[events.length - 1]!;
      position = last.position;
      handledId = last.id;
      handleFailures = 0;
    } catch (error) {
      handleFailures += 1;
      options.onError?.(error, handleFailures);
      await alarm.sleep(backoffMs(handleFailures));
    }
  };

  /** One last page, once, for a stop that came between a wake and its read (a failure, of the read or the handling, is reported, not retried). */
  const handleLast = async (): Promise<void> => {
    if (log.closed() || replaced !== null) return;
    let page: LogPage;
    try {
      page = await log.readPage(position, maxBatchSize);
    } catch (error) {
      notify(options.onDropped, error, failures + 1);
      return;
    }
    if (!stillHolds(page) || page.events.length === 0) return;
    try {
      await options.handle(page.events);
      const last = page.events[page.events.length - 1]!;
      position = last.position;
      handledId = last.id;
    } catch (error) {
      options.onError?.(error, 1);
    }
  };

  /**
   * Sleeps until a commit (or a stop) wakes it or the poll interval passes. Woken, it
   * waits a turn of the event loop before it reads, so that the appends the commit
   * resolved have answered first (decision 133); a stop asked in that turn still gets
   * the events committed before it.
   */
  const idle = async (): Promise<void> => {
    if (!(await alarm.sleep(log.pollIntervalMs))) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (stopped) await handleLast();
  };

  const run = async (): Promise<void> => {
    while (!stopped) {
      if (replaced !== null) {
        // Stopped for good: said again now and then, never resumed.
        failures += 1;
        notify(options.onDropped, replaced, failures);
        await stopAlarm.sleep(backoffMs(failures, 1_000, 60_000));
        continue;
      }
      if (log.closed()) {
        await stopAlarm.sleep(log.pollIntervalMs);
        continue;
      }
      const page = await read();
      if (page === null || !stillHolds(page)) continue;
      if (!connected) {
        connected = true;
        failures = 0;
        notify(options.onConnected);
      }
      if (page.events.length === 0) {
        await idle();
        continue;
      }
      await handle(page.events);
      // A page that reached the head it was read with leaves nothing to read until the next
      // commit, which wakes the alarm (at once if it came during the handling): no read to
      // find the log unchanged.
      if (!stopped && page.head !== null && position === page.head) await idle();
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
      log.alarms.delete(alarm);
    },
  };
};
