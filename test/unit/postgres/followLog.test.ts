import { expect } from 'chai';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import type { Alarm } from '../../../src/application/subscriptions/Alarm.js';
import { followLog, type LogPage, type LogPages } from '../../../src/adapters/postgres/followLog.js';
import { eventually, sleep } from '../../support/events.js';

const event = (position: number): RecordedEvent =>
  ({ id: `event-${position}`, stream: 'stream', revision: position - 1, position: String(position), type: 'Happened', data: {}, metadata: {}, recordedAt: new Date() }) as unknown as RecordedEvent;

/** A log of `head` events, read in pages of the subscription's size; every read counted. */
const fakeLog = () => {
  let head = 0;
  const log = {
    reads: 0,
    alarms: new Set<Alarm>(),
    pollIntervalMs: 60_000,
    closed: () => false,
    readPage: async (after: string | null, maxCount: number): Promise<LogPage> => {
      log.reads += 1;
      const from = after === null ? 0 : Number(after);
      const events = Array.from({ length: Math.max(0, Math.min(maxCount, head - from)) }, (_, k) => event(from + k + 1));
      return { events, head: head === 0 ? null : String(head), atId: from === 0 ? null : `event-${from}` };
    },
    /** A commit of `count` events, and the wake-up every commit brings. */
    commit: (count: number) => {
      head += count;
      log.alarms.forEach((alarm) => alarm.wake());
    },
  };
  return log satisfies LogPages;
};

/** A subscription from the start of a fake log of `events` events, the positions it handles collected, stopped afterwards. */
const following = async (
  events: number,
  options: { readonly maxBatchSize?: number },
  check: (log: ReturnType<typeof fakeLog>, seen: string[]) => Promise<void>,
): Promise<void> => {
  const log = fakeLog();
  log.commit(events);
  const seen: string[] = [];
  const subscription = followLog({ after: null, ...options, handle: async (batch) => void seen.push(...batch.map((e) => e.position)) }, log);
  try {
    await check(log, seen);
  } finally {
    await subscription.stop();
  }
};

describe('followLog (the PostgreSQL log’s subscriptions)', () => {
  it('given a page that reached the head it was read with, when it is handled, then the subscription sleeps until the next commit instead of reading the log again', () =>
    following(2, {}, async (log, seen) => {
      await eventually(() => seen.length === 2);
      await sleep(50);
      expect(log.reads).to.equal(1);

      log.commit(1);
      await eventually(() => seen.length === 3);
      await sleep(50);
      expect(seen).to.deep.equal(['1', '2', '3']);
      expect(log.reads).to.equal(2);
    }));

  it('given a page short of the head, when it is handled, then the next page is read at once', () =>
    following(5, { maxBatchSize: 2 }, async (log, seen) => {
      await eventually(() => seen.length === 5);
      await sleep(50);
      expect(seen).to.deep.equal(['1', '2', '3', '4', '5']);
      // Pages 1–2, 3–4 and 5: the last reached the head, so no fourth read.
      expect(log.reads).to.equal(3);
    }));

  it('given a commit while a page is being handled, when the handling ends, then the subscription reads the commit’s events without waiting for its poll', async () => {
    const log = fakeLog();
    log.commit(1);
    const seen: string[] = [];
    let committedDuringHandling = false;
    const subscription = followLog(
      {
        after: null,
        handle: async (events) => {
          if (!committedDuringHandling) {
            committedDuringHandling = true;
            log.commit(1);
          }
          seen.push(...events.map((e) => e.position));
        },
      },
      log,
    );
    try {
      // The poll is a minute away: only the wake-up of the commit brings event 2 in time.
      await eventually(() => seen.length === 2, 1_000);
      expect(seen).to.deep.equal(['1', '2']);
    } finally {
      await subscription.stop();
    }
  });

  it('given a page whose handling failed, when the log meanwhile holds other events at its positions (a failover lost them), then the page is read again and the new events are handed, never the lost ones', async () => {
    // The old primary: events 1 and 2 (2 committed there, never replicated). The new one: 1, then 2′.
    let failedOver = false;
    const page = (after: string | null): LogPage => {
      const from = after === null ? 0 : Number(after);
      const ids = failedOver ? ['event-1', 'event-2-new'] : ['event-1', 'event-2'];
      const events = ids.slice(from).map((id, k) => ({ ...event(from + k + 1), id }));
      return { events, head: String(ids.length), atId: from === 0 ? null : ids[from - 1]! };
    };
    const log: LogPages = { alarms: new Set<Alarm>(), pollIntervalMs: 60_000, closed: () => false, readPage: async (after) => page(after) };
    const handled: string[] = [];
    const failures: number[] = [];
    const subscription = followLog(
      {
        after: '1',
        handle: async (batch) => {
          if (!failedOver) {
            // The batch's commit meets the failover: it fails, and the new primary is the one read next.
            failedOver = true;
            throw new Error('Connection terminated unexpectedly');
          }
          handled.push(...batch.map((e) => e.id));
        },
        onError: (_error, attempt) => void failures.push(attempt),
      },
      log,
    );
    try {
      await eventually(() => handled.length === 1);
      expect(handled).to.deep.equal(['event-2-new']);
      expect(failures).to.deep.equal([1]);
      expect(subscription.position).to.equal('2');
    } finally {
      await subscription.stop();
    }
  });
});
