import { expect } from 'chai';
import type { EventStoreDBClient, ReadAllOptions } from '@eventstore/db-client';
import { EventStoreDbEventStore, encodeEsdbPosition } from '../../../src/adapters/eventstoredb/EventStoreDbEventStore.js';

/**
 * How readAll pages through $all: counted against a stand-in for the client's
 * `readAll` (an array in log order, read with the client's inclusive
 * `fromPosition` and `maxCount`). What the server returns is checked by the
 * EventStore contract suite against a real EventStoreDB (EVENTSTORE_URL); this
 * only counts the round trips our paging makes.
 */
interface DriverEvent {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  isJson: boolean;
  created: Date;
  position: { commit: bigint; prepare: bigint };
}

const driverEvent = (n: number, system: boolean): DriverEvent => ({
  streamId: system ? '$stats-127.0.0.1:2113' : `contact-${n}`,
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  revision: 0n,
  type: system ? '$statsCollected' : 'ContactCreated',
  data: { n },
  metadata: { source: 'api', correlationId: `c${n}` },
  isJson: true,
  created: new Date('2026-01-01T00:00:00.000Z'),
  position: { commit: BigInt(100 + n * 10), prepare: BigInt(100 + n * 10) },
});

const stubClient = (log: readonly DriverEvent[]) => {
  const calls: number[] = [];
  const client = {
    readAll(options: ReadAllOptions = {}) {
      const maxCount = Number(options.maxCount ?? Number.MAX_SAFE_INTEGER);
      calls.push(maxCount);
      const from = options.fromPosition;
      const start =
        from === undefined || from === 'start'
          ? 0
          : log.findIndex((e) => e.position.commit >= (from as { commit: bigint }).commit);
      const page = (start < 0 ? [] : log.slice(start, start + maxCount)).map((event) => ({ event }));
      return (async function* () {
        yield* page;
      })();
    },
  };
  return { client: client as unknown as EventStoreDBClient, calls };
};

describe('EventStoreDB readAll paging', () => {
  // One of ours, then a quiet spell of 2000 system events ($stats every 30 s is ~17 hours' worth), then ours again.
  const log = [driverEvent(0, false), ...Array.from({ length: 2000 }, (_, i) => driverEvent(i + 1, true)), driverEvent(2001, false)];
  const first = encodeEsdbPosition(log[0]!.position);

  it('reads past a long run of system events in a few round trips, not one per event', async () => {
    const { client, calls } = stubClient(log);
    const store = new EventStoreDbEventStore(client);
    const [next] = await store.readAll({ after: first, maxCount: 1 });
    expect(next?.stream).to.equal('contact-2001');
    expect(calls.length, `${calls.length} reads, page sizes ${calls.slice(0, 8).join(', ')}…`).to.be.at.most(6);
  });

  it('still returns exactly maxCount events of ours, in order, skipping system events', async () => {
    const { client } = stubClient(log);
    const store = new EventStoreDbEventStore(client);
    expect((await store.readAll({ maxCount: 2 })).map((e) => e.stream)).to.deep.equal(['contact-0', 'contact-2001']);
    expect((await store.readAll({ maxCount: 1 })).map((e) => e.stream)).to.deep.equal(['contact-0']);
    expect(await store.readAll({ after: encodeEsdbPosition(log[log.length - 1]!.position), maxCount: 1 })).to.deep.equal([]);
  });
});
