import { expect } from 'chai';
import pg from 'pg';
import { PostgresEventStore, type PostgresEventStoreOptions } from '../../src/adapters/postgres/PostgresEventStore.js';
import { LogReplacedError } from '../../src/application/subscriptions/LogReplacedError.js';
import type { EventToAppend, RecordedEvent } from '../../src/application/ports/EventStore.js';
import { StoreUnavailableError } from '../../src/application/ports/StoreUnavailableError.js';
import { anEvent, eventually, sleep, uniqueStream } from '../support/events.js';
import { skipLine } from '../support/integration.js';
import { countStatements, freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../support/postgres.js';
import { migratedLogPool } from '../support/postgresLog.js';

/** Calls `log_append` on `client` (in its transaction, if it has one open) as the store does, for one append to a new stream. */
const appendOn = (client: pg.Client, stream: string, events: readonly EventToAppend[]) =>
  client.query('SELECT log_append($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
    '10s',
    [1],
    [stream],
    ['no_stream'],
    [events.length],
    events.map((event) => event.id),
    events.map((event) => event.type),
    events.map((event) => JSON.stringify(event.data)),
    events.map((event) => JSON.stringify(event.metadata)),
  ]);

/** Collects what a subscription hands out, with its failures and drops. */
const follow = (store: PostgresEventStore, after: string | null) => {
  const seen: RecordedEvent[] = [];
  const dropped: unknown[] = [];
  const subscription = store.subscribeToAll({
    after,
    handle: async (batch) => void seen.push(...batch),
    onDropped: (error) => void dropped.push(error),
  });
  return { seen, dropped, subscription };
};

if (!postgresTestUrl()) {
  skipLine('PostgresEventStore: order, notifications, a replaced log', 'POSTGRES_TEST_URL');
} else {
  describe('PostgresEventStore', function () {
    this.timeout(20_000);
    let database: FreshDatabase;
    const stores: PostgresEventStore[] = [];
    const clients: pg.Client[] = [];
    const open = async (options: PostgresEventStoreOptions = {}): Promise<PostgresEventStore> => {
      const store = new PostgresEventStore(await migratedLogPool(database.url), { ownsPool: true, ...options });
      stores.push(store);
      return store;
    };
    /** A connection of its own, as another process (or an operator's psql) has. */
    const connect = async (): Promise<pg.Client> => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      clients.push(client);
      return client;
    };

    beforeEach(async () => {
      database = await freshPostgresDatabase();
    });
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((client) => client.end().catch(() => undefined)));
      await Promise.all(stores.splice(0).map((store) => store.close()));
      await database.drop();
    });

    describe('one global order that a subscriber never skips', () => {
      it('an append that takes its position while an earlier one is uncommitted commits after it: a reader between them sees neither, then both, in order, once', async () => {
        const store = await open({ pollIntervalMs: 10 });
        await store.append(uniqueStream(), [anEvent('Before')], 'no_stream');
        const head = await store.headPosition();
        const { seen, subscription } = follow(store, head);
        const reads: string[][] = [];
        try {
          // Another process's append: its transaction takes the next position and stays open.
          const held = await connect();
          await held.query('BEGIN');
          const first = anEvent('First');
          await appendOn(held, uniqueStream('held'), [first]);
          // This process appends meanwhile; it may not commit ahead of the open one.
          const second = anEvent('Second');
          let settled = false;
          const appended = store.append(uniqueStream('later'), [second], 'no_stream').finally(() => (settled = true));
          for (let i = 0; i < 10; i++) {
            reads.push((await store.readAll({ after: head })).map((event) => event.type));
            await sleep(20);
          }
          expect(settled, 'the later append waits for the open one').to.equal(false);
          expect(reads.every((read) => read.length === 0), 'a reader between them sees neither').to.equal(true);
          expect(seen).to.deep.equal([]);

          await held.query('COMMIT');
          const { position } = await appended;
          await eventually(() => seen.length >= 2, 5_000);
          await sleep(100);
          expect(seen.map((event) => event.type)).to.deep.equal(['First', 'Second']);
          expect(seen.map((event) => event.id)).to.deep.equal([first.id, second.id]);
          expect(seen.map((event) => BigInt(event.position))).to.deep.equal([BigInt(head!) + 1n, BigInt(head!) + 2n]);
          expect(position).to.equal(seen[1]!.position);
        } finally {
          await subscription.stop();
        }
      });

      it('an append that was rolled back leaves no gap: the next one takes its position', async () => {
        const store = await open({ pollIntervalMs: 10 });
        const held = await connect();
        await held.query('BEGIN');
        await appendOn(held, uniqueStream('held'), [anEvent('Lost')]);
        const appended = store.append(uniqueStream(), [anEvent('Kept')], 'no_stream');
        await sleep(50);
        await held.query('ROLLBACK');
        expect((await appended).position).to.equal('1');
        expect((await store.readAll()).map((event) => [event.position, event.type])).to.deep.equal([['1', 'Kept']]);
      });

      it('hands every event of many writers to a subscriber exactly once, in position order, positions without gaps', async () => {
        const [a, b, c] = [await open({ pollIntervalMs: 10 }), await open(), await open()];
        const { seen, subscription } = follow(a, null);
        try {
          const writers = [a, b, c].map(async (store, w) => {
            for (let round = 0; round < 10; round++) {
              await Promise.all(Array.from({ length: 5 }, () => store.append(uniqueStream(`w${w}`), [anEvent('E'), anEvent('E')], 'no_stream')));
            }
          });
          await Promise.all(writers);
          await eventually(() => seen.length === 300, 10_000);
          expect(seen.map((event) => Number(event.position))).to.deep.equal(Array.from({ length: 300 }, (_, i) => i + 1));
          expect(new Set(seen.map((event) => event.id)).size).to.equal(300);
        } finally {
          await subscription.stop();
        }
      });
    });

    describe('group commit', () => {
      it('commits the appends of one turn of the event loop together, each with its own outcome', async () => {
        const store = await open();
        let commits = 0;
        store.onAppended(() => (commits += 1));
        const stream = uniqueStream();
        await store.append(stream, [anEvent('A')], 'no_stream');
        commits = 0;
        const outcomes = await Promise.allSettled([
          ...Array.from({ length: 50 }, () => store.append(uniqueStream(), [anEvent('B')], 'no_stream')),
          store.append(stream, [anEvent('Stale')], 5),
        ]);
        expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(50);
        expect(commits).to.equal(1);
        const positions = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [Number(o.value.position)] : []));
        expect(new Set(positions).size).to.equal(50);
      });

      it('keeps the order of appends to one stream, and refuses an event id given again, asked in one turn', async () => {
        const store = await open();
        const stream = uniqueStream();
        const event = anEvent('Once');
        const outcomes = await Promise.allSettled([
          store.append(stream, [anEvent('A')], 'no_stream'),
          store.append(stream, [anEvent('B')], 0),
          store.append(uniqueStream(), [event], 'no_stream'),
          store.append(uniqueStream(), [event], 'no_stream'),
          store.append(stream, [anEvent('C')], 1),
          store.append(uniqueStream(), [anEvent('D'), { ...event, type: 'Twice' }, { ...event, type: 'Twice' }], 'no_stream'),
        ]);
        expect(outcomes.map((o) => (o.status === 'fulfilled' ? 'stored' : (o.reason as Error).name))).to.deep.equal([
          'stored',
          'stored',
          'stored',
          'DuplicateEventIdError',
          'stored',
          'DuplicateEventIdError',
        ]);
        expect((await store.readStream(stream)).map((e) => [e.type, e.revision])).to.deep.equal([
          ['A', 0],
          ['B', 1],
          ['C', 2],
        ]);
        expect((await store.readAll()).map((e) => e.type)).to.deep.equal(['A', 'Once', 'B', 'C']);
      });

      it('fails the appends as busy (503) when another commit holds the log past lockWaitMs, storing nothing of them', async () => {
        const store = await open({ lockWaitMs: 100 });
        const held = await connect();
        await held.query('BEGIN');
        await appendOn(held, uniqueStream('held'), [anEvent('Held')]);
        const stream = uniqueStream();
        const refused = await store.append(stream, [anEvent('A')], 'no_stream').catch((error: unknown) => error);
        expect(refused).to.be.instanceOf(StoreUnavailableError);
        expect((refused as StoreUnavailableError).reason).to.equal('busy');
        await held.query('ROLLBACK');
        expect(await store.readStream(stream)).to.deep.equal([]);
        await store.append(stream, [anEvent('A')], 'no_stream');
        expect(await store.readStream(stream)).to.have.length(1);
      });
    });

    describe('notifications (LISTEN/NOTIFY)', () => {
      it('wake an idle subscription at another process’s commit, and again once its listening connection was cut', async () => {
        // Polls a minute apart: only a notification brings the events within the test's time.
        const follower = await open({ pollIntervalMs: 60_000 });
        const writer = await open();
        const { seen, subscription } = follow(follower, null);
        const admin = await connect();
        const listening = async () =>
          (await admin.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'")).rowCount === 1;
        try {
          // Once it listens, a commit's notification wakes it: far sooner than its next poll, a minute on.
          await eventually(listening, 5_000, 20);
          await writer.append(uniqueStream(), [anEvent('One')], 'no_stream');
          await eventually(() => seen.length === 1, 10_000);

          // The server ends the listening connection (a restart, a failover): it listens again by itself.
          const { rowCount } = await admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'",
          );
          expect(rowCount).to.equal(1);
          await eventually(listening, 5_000, 20);
          await writer.append(uniqueStream(), [anEvent('Two')], 'no_stream');
          await eventually(() => seen.length === 2, 10_000);
        } finally {
          await subscription.stop();
        }
      });
      it('read the log only for other processes’ commits: this process’s own are handed from memory, as the log holds them', async () => {
        // Polls a minute apart: every read counted is one a commit woke.
        const follower = await open({ pollIntervalMs: 60_000 });
        const writer = await open();
        const reads = countStatements(follower.pool, 'SELECT h.head');
        const { seen, subscription } = follow(follower, null);
        try {
          await sleep(200);
          const before = reads.count;
          // The first commit is read (the subscription's position, 0, is none of this process's events), the next ones are not.
          for (let n = 1; n <= 3; n++) {
            await follower.append(uniqueStream(), [anEvent(`Own${n}`, { n, text: `é "${n}" \\` })], 'no_stream');
            await eventually(() => seen.length === n, 2_000);
            // Time for the commit's notification to come back.
            await sleep(150);
          }
          expect(reads.count - before).to.equal(1);
          // A multi-stream append of three events, ending at a position and revision the append answered.
          const [a, b] = [uniqueStream(), uniqueStream()];
          await follower.appendToStreams([
            { stream: a, events: [anEvent('A1'), anEvent('A2')], expected: 'no_stream' },
            { stream: b, events: [anEvent('B1')], expected: 'no_stream' },
          ]);
          await eventually(() => seen.length === 6, 2_000);
          await sleep(150);
          expect(reads.count - before).to.equal(1);

          // Another process's commit is heard of by its notification: read, and the own commit after it from memory again.
          await writer.append(uniqueStream(), [anEvent('Theirs')], 'no_stream');
          await eventually(() => seen.length === 7, 2_000);
          await sleep(150);
          expect(reads.count - before).to.equal(2);
          await follower.append(uniqueStream(), [anEvent('Own4')], 'no_stream');
          await eventually(() => seen.length === 8, 2_000);
          await sleep(150);
          // Read: the position before it (the other process's event) is not this process's own.
          expect(reads.count - before).to.equal(3);
          await follower.append(uniqueStream(), [anEvent('Own5')], 'no_stream');
          await eventually(() => seen.length === 9, 2_000);
          await sleep(150);
          expect(reads.count - before).to.equal(3);

          // What was handed from memory is what the log holds: a subscription of another store reads it all.
          const reader = follow(writer, null);
          try {
            await eventually(() => reader.seen.length === 9, 2_000);
            expect(seen).to.deep.equal(reader.seen);
            expect(seen.map((event) => event.type)).to.deep.equal(['Own1', 'Own2', 'Own3', 'A1', 'A2', 'B1', 'Theirs', 'Own4', 'Own5']);
          } finally {
            await reader.subscription.stop();
          }
        } finally {
          await subscription.stop();
        }
      });
    });

    describe('a log put back to an older copy', () => {
      it('stops a subscription that handled events the log no longer holds, and hands out nothing that took their positions', async () => {
        const store = await open({ pollIntervalMs: 10 });
        await store.append(uniqueStream(), [anEvent('Kept')], 'no_stream');
        const { seen, dropped, subscription } = follow(store, null);
        try {
          await store.append(uniqueStream(), [anEvent('Lost')], 'no_stream');
          await eventually(() => seen.length === 2, 5_000);
          // A restore of a copy taken after the first event, and an append to it, before the subscription looks again.
          const admin = await connect();
          await admin.query('BEGIN');
          await admin.query('DELETE FROM log_events WHERE position > 1');
          await admin.query('UPDATE log_head SET position = 1');
          await appendOn(admin, uniqueStream(), [anEvent('New')]);
          await admin.query('COMMIT');
          await store.append(uniqueStream(), [anEvent('Newer')], 'no_stream');
          await eventually(() => dropped.length > 0, 5_000);
          await sleep(100);
          expect(seen.map((event) => event.type)).to.deep.equal(['Kept', 'Lost']);
          expect(dropped[0]).to.be.instanceOf(LogReplacedError);
          expect(dropped[0]).to.include({ position: '2', handledEventId: seen[1]!.id });
          expect((dropped[0] as LogReplacedError).foundEventId).to.be.a('string').and.not.equal(seen[1]!.id);
        } finally {
          await subscription.stop();
        }
      });

      it('hands out, from this process’s own events, nothing the log lost: a commit that takes positions it held forgets them', async () => {
        const store = await open({ pollIntervalMs: 10 });
        for (const type of ['First', 'Lost', 'AlsoLost']) await store.append(uniqueStream(), [anEvent(type)], 'no_stream');
        // A restore of a copy taken after the first event, under the running process; then an append of its own.
        const admin = await connect();
        await admin.query('BEGIN');
        await admin.query('DELETE FROM log_events WHERE position > 1');
        await admin.query('UPDATE log_head SET position = 1');
        await admin.query('COMMIT');
        await store.append(uniqueStream(), [anEvent('New')], 'no_stream');
        const { seen, subscription } = follow(store, '1');
        try {
          await eventually(() => seen.length === 1, 2_000);
          await sleep(200);
          expect(seen.map((event) => [event.position, event.type])).to.deep.equal([['2', 'New']]);
        } finally {
          await subscription.stop();
        }
      });

      it('refuses to start a subscription after a position the log does not reach', async () => {
        const store = await open({ pollIntervalMs: 10 });
        await store.append(uniqueStream(), [anEvent('Only')], 'no_stream');
        const { seen, dropped, subscription } = follow(store, '5');
        try {
          await eventually(() => dropped.length > 0, 5_000);
          await store.append(uniqueStream(), [anEvent('A')], 'no_stream');
          await sleep(100);
          expect(dropped[0]).to.be.instanceOf(LogReplacedError);
          expect(dropped[0]).to.include({ position: '5', foundEventId: null, head: '1' });
          expect(seen).to.deep.equal([]);
        } finally {
          await subscription.stop();
        }
      });
    });

    it('answers the id of the event at a position, and null where there is none', async () => {
      const store = await open();
      const event = anEvent('Here');
      const { position } = await store.append(uniqueStream(), [event], 'no_stream');
      expect(await store.eventIdAt(position)).to.equal(event.id);
      expect(await store.eventIdAt('2')).to.equal(null);
      expect(await store.eventIdAt('0')).to.equal(null);
      expect(await store.eventIdAt('99999999999999999999999')).to.equal(null);
    });

    it('keeps the data as written, and records the time on the database’s clock to the millisecond', async () => {
      const store = await open();
      const stream = uniqueStream();
      const data = { z: 1, a: [1.5, 'x', null], nested: { b: true, a: 'é' } };
      const before = Date.now();
      await store.append(stream, [anEvent('Kept', data)], 'no_stream');
      const [event] = await store.readStream(stream);
      expect(JSON.stringify(event!.data)).to.equal(JSON.stringify(data));
      expect(Date.parse(event!.recordedAt)).to.be.within(before - 5_000, Date.now() + 5_000);
      const admin = await connect();
      const { rows } = await admin.query<{ data: string }>('SELECT data::text AS data FROM log_events WHERE stream = $1', [stream]);
      expect(rows[0]!.data).to.equal(JSON.stringify(data));
    });
  });
}
