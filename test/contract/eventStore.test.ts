import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { eventStoreContract, type EventStoreFixture } from './eventStore.contract.js';
import { eventStoreVersionsContract } from './eventStoreVersions.contract.js';
import { eventually } from '../support/events.js';
import { skipLine } from '../support/integration.js';
import { StoreUnavailableError } from '../../src/application/ports/StoreUnavailableError.js';
import { PostgresEventStore } from '../../src/adapters/postgres/PostgresEventStore.js';
import { freshPostgresDatabase, postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../support/postgresLog.js';

const openSqlite = async (): Promise<EventStoreFixture> => {
  const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
  const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
eventStoreContract('SQLite (embedded)', openSqlite, { multiStreamAppend: true, ownCommitsWakeSubscriptions: true, keepsGivenTimes: true });
eventStoreVersionsContract('SQLite (embedded)', openSqlite);

const eventStoreUrl = process.env.EVENTSTORE_URL;
if (eventStoreUrl) {
  const openEventStoreDb = async (): Promise<EventStoreFixture> => {
    const { EventStoreDbEventStore } = await import('../../src/adapters/eventstoredb/EventStoreDbEventStore.js');
    const store = EventStoreDbEventStore.connect(eventStoreUrl);
    return { store, dispose: () => store.close() };
  };
  eventStoreContract('EventStoreDB', openEventStoreDb, { multiStreamAppend: false, ownCommitsWakeSubscriptions: false });
  eventStoreVersionsContract('EventStoreDB', openEventStoreDb, { shared: true });
} else {
  skipLine('EventStore contract: EventStoreDB', 'EVENTSTORE_URL');
}

if (postgresTestUrl()) {
  const database = databaseForThisFile();
  const openPostgres = async (url: string): Promise<EventStoreFixture> => {
    const store = new PostgresEventStore(await migratedLogPool(url), { ownsPool: true });
    return { store, dispose: () => store.close() };
  };
  eventStoreContract('PostgreSQL', async () => openPostgres((await database()).url), { multiStreamAppend: true, ownCommitsWakeSubscriptions: true, keepsGivenTimes: true });
  // A database per test: the case that writes an event no release can read leaves it unread behind.
  eventStoreVersionsContract('PostgreSQL', async () => {
    const fresh = await freshPostgresDatabase();
    const { store, dispose } = await openPostgres(fresh.url);
    return { store, dispose: () => dispose().finally(() => fresh.drop()) };
  });
} else {
  skipLine('EventStore contract: PostgreSQL', 'POSTGRES_TEST_URL');
}

describe('SqliteEventStore: appends of another connection on the file (another process)', () => {
  it('reach an idle subscription from another connection, read only once the file changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
    const file = join(dir, 'events.sqlite');
    const follower = SqliteEventStore.open(file);
    const writer = SqliteEventStore.open(file);
    let reads = 0;
    const counted = follower as unknown as { readAllSync: (...args: unknown[]) => unknown };
    const readAllSync = counted.readAllSync.bind(follower);
    counted.readAllSync = (...args: unknown[]) => {
      reads += 1;
      return readAllSync(...args);
    };
    const seen: string[] = [];
    const subscription = follower.subscribeToAll({
      after: null,
      handle: async (batch) => {
        for (const event of batch) seen.push(event.position);
      },
    });
    try {
      // Idle for 200 ms: the log is read once at the start, then no more (only the file's version is looked at).
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(reads).to.equal(1);
      // Each append of the other connection reaches it (how soon: `npm run bench:timings`).
      const appended: string[] = [];
      for (let i = 0; i < 20; i++) {
        const { position } = await writer.append(`s-${i}`, [{ id: randomUUID(), type: 'Pinged', data: {}, metadata: { source: 'system', correlationId: 'c' } }], 'no_stream');
        appended.push(position);
        await eventually(() => seen.includes(position), 5_000, 1);
      }
      expect(seen).to.deep.equal(appended);
    } finally {
      await subscription.stop();
      await follower.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteEventStore: telling other processes of appends (API_WORKERS)', () => {
  const pinged = () => [{ id: randomUUID(), type: 'Pinged', data: {}, metadata: { source: 'system' as const, correlationId: 'c' } }];

  it('calls onAppended once per group commit that stored something, not for one whose every append was refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    let commits = 0;
    const stop = store.onAppended(() => (commits += 1));
    try {
      // Three appends in one turn of the event loop: one group commit.
      await Promise.all([store.append('a', pinged(), 'no_stream'), store.append('b', pinged(), 'no_stream'), store.append('c', pinged(), 'no_stream')]);
      expect(commits).to.equal(1);
      // A group commit of refused appends only (wrong revision) stores nothing: nobody is told.
      const refused = await store.append('a', pinged(), 'no_stream').then(
        () => 'stored',
        (error: Error) => error.name,
      );
      expect(refused).to.equal('WrongExpectedRevisionError');
      expect(commits).to.equal(1);
      await store.append('a', pinged(), 0);
      expect(commits).to.equal(2);
      stop();
      await store.append('a', pinged(), 1);
      expect(commits).to.equal(2);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lookNow makes an idle subscription read another connection’s append at once, not at its next poll', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
    const file = join(dir, 'events.sqlite');
    // Polls a minute apart: only lookNow can bring the event within the test's time.
    const follower = SqliteEventStore.open(file, { pollIntervalMs: 60_000 });
    const writer = SqliteEventStore.open(file);
    const seen: string[] = [];
    let arrived: () => void = () => undefined;
    const subscription = follower.subscribeToAll({
      after: null,
      handle: async (batch) => {
        seen.push(...batch.map((event) => event.position));
        arrived();
      },
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const { position } = await writer.append('s', pinged(), 'no_stream');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen).to.deep.equal([]);
      const seenNow = new Promise<void>((resolve) => (arrived = resolve));
      follower.lookNow();
      await seenNow;
      expect(seen).to.deep.equal([position]);
    } finally {
      await subscription.stop();
      await follower.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SqliteEventStore: its subscriptions read its own appends from memory', () => {
  const event = (type = 'Pinged') => ({ id: randomUUID(), type, data: { n: Math.random() }, metadata: { source: 'system' as const, correlationId: 'c' } });
  const positionsOf = (events: readonly { position: string }[]) => events.map((e) => e.position);
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
    file = join(dir, 'events.sqlite');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** What a connection that wrote nothing (no memory of appends) reads, for every position and page size. */
  const expectSameReads = async (store: SqliteEventStore, truth: SqliteEventStore): Promise<void> => {
    const all = await truth.readAll();
    for (const after of [null, ...positionsOf(all)]) {
      for (const maxCount of [undefined, 1, 3]) {
        expect(await store.readAll({ after, maxCount }), `after ${after} maxCount ${maxCount}`).to.deep.equal(
          await truth.readAll({ after, maxCount }),
        );
      }
    }
  };

  it('reads what a fresh connection reads, with another connection’s appends between its own', async () => {
    const store = SqliteEventStore.open(file);
    const other = SqliteEventStore.open(file);
    const truth = SqliteEventStore.open(file);
    try {
      await Promise.all([store.append('a', [event(), event()], 'no_stream'), store.append('b', [event()], 'no_stream')]);
      await store.append('a', [event()], 1);
      await other.append('c', [event(), event()], 'no_stream');
      // Its own rows follow another connection's: they must not be taken for the whole log's tail.
      await store.append('a', [event()], 2);
      await store.append('d', [event()], 'no_stream');
      expect(positionsOf(await truth.readAll())).to.have.length(8);
      await expectSameReads(store, truth);
      // Another connection commits after this one's last append: read from the file, not missed.
      await other.append('c', [event()], 1);
      await expectSameReads(store, truth);
      expect(positionsOf(await store.readAll())).to.have.length(9);
    } finally {
      await Promise.all([store.close(), other.close(), truth.close()]);
    }
  });

  it('never hands out the events of a refused append, nor of a group commit that failed whole', async () => {
    const store = SqliteEventStore.open(file);
    const truth = SqliteEventStore.open(file);
    try {
      await store.append('a', [event()], 'no_stream');
      const duplicate = event();
      await store.append('dup', [duplicate], 'no_stream');
      // One group commit: a wrong revision, a duplicate event id, a refused multi-stream append, and appends that hold.
      const outcomes = await Promise.allSettled([
        store.append('a', [event(), event()], 'no_stream'),
        store.append('b', [event()], 'no_stream'),
        store.append('x', [duplicate], 'no_stream'),
        store.appendToStreams([
          { stream: 'c', events: [event()], expected: 'no_stream' },
          { stream: 'a', events: [event()], expected: 5 },
        ]),
        store.append('a', [event(), event()], 0),
      ]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
      await expectSameReads(store, truth);
      expect((await store.readAll()).map((e) => e.stream)).to.deep.equal(['a', 'dup', 'b', 'a', 'a']);

      // A group commit that fails as a whole (here a trigger of this connection's throws) stores nothing.
      store.db.function('boom', () => {
        throw new Error('boom');
      });
      store.db.exec(`CREATE TEMP TRIGGER boom BEFORE INSERT ON events WHEN NEW.type = 'Boom' BEGIN SELECT boom(); END`);
      const failed = await Promise.allSettled([store.append('e', [event()], 'no_stream'), store.append('f', [event('Boom')], 'no_stream')]);
      expect(failed.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
      await store.append('g', [event()], 'no_stream');
      await expectSameReads(store, truth);
      expect((await store.readAll()).map((e) => e.stream)).to.deep.equal(['a', 'dup', 'b', 'a', 'a', 'g']);
    } finally {
      await Promise.all([store.close(), truth.close()]);
    }
  });

  it('reads the file only for what another connection wrote', async () => {
    const store = SqliteEventStore.open(file);
    const other = SqliteEventStore.open(file);
    const statements = (store as unknown as { statements: { readAll: { all: (...args: unknown[]) => unknown[] } } }).statements;
    const all = statements.readAll.all.bind(statements.readAll);
    let fileReads = 0;
    statements.readAll.all = (...args: unknown[]) => {
      fileReads += 1;
      return all(...args);
    };
    try {
      const first = await store.append('a', [event()], 'no_stream');
      const seen: string[] = [];
      const subscription = store.subscribeToAll({ after: first.position, handle: async (batch) => void seen.push(...positionsOf(batch)) });
      const waitFor = async (n: number) => {
        for (let i = 0; seen.length < n && i < 500; i++) await new Promise((resolve) => setTimeout(resolve, 2));
      };
      try {
        // The subscription starts at this store's tail: caught up without reading the file.
        for (let i = 1; i <= 5; i++) {
          await store.append('a', [event()], i - 1);
          await waitFor(i);
        }
        expect(seen).to.have.length(5);
        expect(fileReads).to.equal(0);
        // Another process's append: found through the file's data version, read from the file.
        const { position } = await other.append('b', [event()], 'no_stream');
        await waitFor(6);
        expect(seen[5]).to.equal(position);
        expect(fileReads).to.be.greaterThan(0);
        await store.append('a', [event()], 5);
        await waitFor(7);
        expect(seen).to.deep.equal(positionsOf(await store.readAll({ after: first.position })));
      } finally {
        await subscription.stop();
      }
    } finally {
      await Promise.all([store.close(), other.close()]);
    }
  });
});

describe('SqliteEventStore: the write lock held by another connection (another API process, the CLI)', () => {
  const pinged = () => [{ id: randomUUID(), type: 'Pinged', data: {}, metadata: { source: 'system' as const, correlationId: 'c' } }];
  const withFile = async (run: (file: string) => Promise<void>) => {
    const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
    try {
      await run(join(dir, 'events.sqlite'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('is waited for with the event loop serving; the appends that arrive meanwhile join the group commit', async () =>
    withFile(async (file) => {
      const store = SqliteEventStore.open(file);
      const other = SqliteEventStore.open(file);
      let commits = 0;
      store.onAppended(() => (commits += 1));
      try {
        // The other connection (in this very thread: SQLite sleeping here would never let it go) takes the lock.
        other.db.exec('BEGIN IMMEDIATE');
        let stored = 0;
        const first = store.append('a', pinged(), 'no_stream').then(() => (stored += 1));
        let timersFired = 0;
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 5).unref()).then(() => (timersFired += 1));
        const second = store.append('b', pinged(), 'no_stream').then(() => (stored += 1));
        expect(timersFired, 'the loop went on').to.equal(5);
        expect(stored, 'nothing stored while the lock is held').to.equal(0);
        other.db.exec('COMMIT');
        await Promise.all([first, second]);
        expect(stored).to.equal(2);
        expect(commits, 'one group commit for both').to.equal(1);
        expect(store.db.pragma('busy_timeout', { simple: true }), 'the connection waits as before for anything else').to.equal(10_000);
        expect((await store.readStream('a')).length + (await other.readStream('b')).length).to.equal(2);
      } finally {
        if (other.db.inTransaction) other.db.exec('ROLLBACK');
        await store.close();
        await other.close();
      }
    }));

  it('fails the appends (503 store busy) when it is not had within lockWaitMs, and stores nothing of them', async () =>
    withFile(async (file) => {
      const store = SqliteEventStore.open(file, { lockWaitMs: 60 });
      const other = SqliteEventStore.open(file);
      try {
        other.db.exec('BEGIN IMMEDIATE');
        const started = performance.now();
        const refused = await store.append('a', pinged(), 'no_stream').then(
          () => null,
          (error: unknown) => error,
        );
        expect(refused).to.be.instanceOf(StoreUnavailableError);
        expect((refused as StoreUnavailableError).reason).to.equal('busy');
        // Not before the wait was over.
        expect(performance.now() - started).to.be.at.least(55);
        other.db.exec('ROLLBACK');
        expect(await store.readStream('a')).to.deep.equal([]);
        // The lock free again: the next append goes through at once.
        await store.append('a', pinged(), 'no_stream');
        expect(await other.readStream('a')).to.have.length(1);
      } finally {
        if (other.db.inTransaction) other.db.exec('ROLLBACK');
        await store.close();
        await other.close();
      }
    }));
});

describe('SqliteEventStore.eventIdAt: the id of the event at a position (the projector’s check of its read models)', () => {
  it('answers the stored id at a position, and null where the log has none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chronicle-es-'));
    const store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    try {
      const id = randomUUID();
      const { position } = await store.append('s', [{ id, type: 'Pinged', data: {}, metadata: { source: 'system', correlationId: 'c' } }], 'no_stream');
      expect(await store.eventIdAt(position)).to.equal(id);
      expect(await store.eventIdAt(String(Number(position) + 1))).to.equal(null);
      expect(await store.eventIdAt('not-a-position')).to.equal(null);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
