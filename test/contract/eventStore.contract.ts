import { expect } from 'chai';
import {
  DuplicateEventIdError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type RecordedEvent,
  type StreamAppend,
  type Subscription,
} from '../../src/application/ports/EventStore.js';
import { comparePositions } from '../../src/shared/Position.js';
import { anEvent, eventually, sleep, uniqueStream } from '../support/events.js';

export interface EventStoreFixture {
  readonly store: EventStore;
  readonly dispose: () => Promise<void>;
}

const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
};

export interface EventStoreContractOptions {
  /**
   * Whether the adapter offers the optional multi-stream append
   * (`appendToStreams`): checked, and its cases run where it does.
   */
  readonly multiStreamAppend: boolean;
  /**
   * Whether the store's own commits wake its subscriptions in this process (SQLite,
   * PostgreSQL; EventStoreDB's are pushed by the server): then each subscription reads
   * a commit's events after the appends' callers have answered (decisions 89 and 133).
   */
  readonly ownCommitsWakeSubscriptions: boolean;
  /** Whether the store keeps the time an appended event gives (`EventToAppend.recordedAt`, an import's): SQLite, PostgreSQL. */
  readonly keepsGivenTimes?: boolean;
}

/**
 * The EventStore port's contract, run unchanged for every adapter. Streams are
 * unique per test and `readAll` is only asserted after a head captured in the
 * test, so the suite also runs against a shared, non-empty server.
 */
export const eventStoreContract = (name: string, open: () => Promise<EventStoreFixture>, options: EventStoreContractOptions): void => {
  describe(`EventStore contract: ${name}`, function () {
    this.timeout(20_000);
    let fixture: EventStoreFixture;
    let store: EventStore;

    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    describe('append and readStream', () => {
      it('appends to a new stream and reads the events back with revisions from 0', async () => {
        const stream = uniqueStream();
        const events = [anEvent('Happened', { n: 1 }), anEvent('Happened', { n: 2, nested: { a: [1, 'x'] } })];
        const result = await store.append(stream, events, 'no_stream');
        expect(result.nextRevision).to.equal(1);
        expect(result.position).to.be.a('string').and.match(/^\d+$/);

        const read = await store.readStream(stream);
        expect(read.map((e) => [e.id, e.type, e.revision, e.stream])).to.deep.equal([
          [events[0]!.id, 'Happened', 0, stream],
          [events[1]!.id, 'Happened', 1, stream],
        ]);
        expect(read[1]!.data).to.deep.equal({ n: 2, nested: { a: [1, 'x'] } });
        expect(read[0]!.metadata).to.deep.equal(events[0]!.metadata);
        expect(read[1]!.position).to.equal(result.position);
        expect(comparePositions(read[0]!.position, read[1]!.position)).to.be.lessThan(0);
        expect(new Date(read[0]!.recordedAt).toISOString()).to.equal(read[0]!.recordedAt);
      });

      it('keeps the time an imported event was first recorded at, and its own for the others', async function () {
        if (!options.keepsGivenTimes) return this.skip();
        const stream = uniqueStream();
        const given = '2020-02-29T12:34:56.789Z';
        const before = Date.now();
        await store.append(stream, [{ ...anEvent('Imported'), recordedAt: given }, anEvent('Imported')], 'no_stream');
        await store.append(stream, [anEvent('Later')], 1);
        const read = await store.readStream(stream);
        expect(read[0]!.recordedAt).to.equal(given);
        expect(Date.parse(read[1]!.recordedAt)).to.be.at.least(before - 1000);
        expect((await store.readAll({ after: null, maxCount: 100_000 })).find((event) => event.id === read[0]!.id)?.recordedAt).to.equal(given);
      });

      it('reads a missing stream as empty', async () => {
        expect(await store.readStream(uniqueStream())).to.deep.equal([]);
      });

      it('reads from a revision and at most maxCount events', async () => {
        const stream = uniqueStream();
        await store.append(stream, [1, 2, 3, 4, 5].map((n) => anEvent('N', { n })), 'no_stream');
        const read = await store.readStream(stream, { fromRevision: 2, maxCount: 2 });
        expect(read.map((e) => (e.data as { n: number }).n)).to.deep.equal([3, 4]);
        expect(read.map((e) => e.revision)).to.deep.equal([2, 3]);
      });

      it('keeps revisions and positions as numbers and strings, never bigint', async () => {
        const stream = uniqueStream();
        const result = await store.append(stream, [anEvent('A')], 'no_stream');
        const [event] = await store.readStream(stream);
        expect(typeof result.nextRevision).to.equal('number');
        expect(typeof result.position).to.equal('string');
        expect(typeof event!.revision).to.equal('number');
        expect(typeof event!.position).to.equal('string');
        expect(() => JSON.stringify({ result, event })).not.to.throw();
      });
    });

    describe('expected revision', () => {
      it('accepts an exact revision and continues the stream', async () => {
        const stream = uniqueStream();
        await store.append(stream, [anEvent('A')], 'no_stream');
        const result = await store.append(stream, [anEvent('B'), anEvent('C')], 0);
        expect(result.nextRevision).to.equal(2);
        expect((await store.readStream(stream)).map((e) => e.type)).to.deep.equal(['A', 'B', 'C']);
      });

      it('refuses no_stream on an existing stream, naming the actual revision', async () => {
        const stream = uniqueStream();
        await store.append(stream, [anEvent('A'), anEvent('B')], 'no_stream');
        const error = await rejectionOf(store.append(stream, [anEvent('C')], 'no_stream'));
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).stream).to.equal(stream);
        expect((error as WrongExpectedRevisionError).actual).to.equal(1);
        expect(await store.readStream(stream)).to.have.length(2);
      });

      it('refuses a stale exact revision', async () => {
        const stream = uniqueStream();
        await store.append(stream, [anEvent('A'), anEvent('B')], 'no_stream');
        const error = await rejectionOf(store.append(stream, [anEvent('C')], 0));
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).actual).to.equal(1);
      });

      it('refuses an exact revision on a missing stream', async () => {
        const error = await rejectionOf(store.append(uniqueStream(), [anEvent('A')], 0));
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).actual).to.equal('no_stream');
      });

      it('refuses stream_exists on a missing stream and accepts it on an existing one', async () => {
        const stream = uniqueStream();
        const error = await rejectionOf(store.append(stream, [anEvent('A')], 'stream_exists'));
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        await store.append(stream, [anEvent('A')], 'no_stream');
        const result = await store.append(stream, [anEvent('B')], 'stream_exists');
        expect(result.nextRevision).to.equal(1);
      });

      it('accepts any on missing and existing streams', async () => {
        const stream = uniqueStream();
        await store.append(stream, [anEvent('A')], 'any');
        const result = await store.append(stream, [anEvent('B')], 'any');
        expect(result.nextRevision).to.equal(1);
      });
    });

    describe('concurrency', () => {
      it('lets exactly one of N concurrent appends with the same expected revision succeed', async () => {
        const stream = uniqueStream();
        await store.append(stream, [anEvent('Start')], 'no_stream');
        const attempts = Array.from({ length: 20 }, (_, i) => store.append(stream, [anEvent('Race', { i })], 0));
        const outcomes = await Promise.allSettled(attempts);
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(won).to.have.length(1);
        expect(lost).to.have.length(19);
        for (const o of lost) expect(o.reason).to.be.instanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(stream)).to.have.length(2);
      });

      it('lets exactly one of N concurrent creations of the same stream succeed', async () => {
        const stream = uniqueStream();
        const outcomes = await Promise.allSettled(
          Array.from({ length: 10 }, () => store.append(stream, [anEvent('Created')], 'no_stream')),
        );
        expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
        expect(await store.readStream(stream)).to.have.length(1);
      });

      it('keeps each concurrent append’s own success or failure', async () => {
        const streams = Array.from({ length: 10 }, () => uniqueStream());
        await Promise.all(streams.map((s) => store.append(s, [anEvent('A')], 'no_stream')));
        // Even-numbered appends expect the right revision, odd-numbered a wrong one.
        const outcomes = await Promise.allSettled(
          streams.map((s, i) => store.append(s, [anEvent('B')], i % 2 === 0 ? 0 : 5)),
        );
        outcomes.forEach((o, i) => expect(o.status, `append ${i}`).to.equal(i % 2 === 0 ? 'fulfilled' : 'rejected'));
        const lengths = await Promise.all(streams.map(async (s) => (await store.readStream(s)).length));
        expect(lengths).to.deep.equal(streams.map((_, i) => (i % 2 === 0 ? 2 : 1)));
      });

      it('stores an event id at most once', async () => {
        const stream = uniqueStream();
        const event = anEvent('Once');
        await store.append(stream, [event], 'no_stream');
        await store.append(stream, [event], 'any').catch(() => undefined);
        const all = await store.readStream(stream);
        expect(all.filter((e) => e.id === event.id)).to.have.length(1);
      });
    });

    describe('appendToStreams (atomic multi-stream append)', () => {
      it(options.multiStreamAppend ? 'is offered' : 'is not offered (the adapter cannot make it atomic)', () => {
        expect(typeof store.appendToStreams).to.equal(options.multiStreamAppend ? 'function' : 'undefined');
      });
      if (!options.multiStreamAppend) return;

      const appendToStreams = (appends: readonly StreamAppend[]): Promise<AppendResult[]> => store.appendToStreams!(appends);
      const types = async (stream: string): Promise<string[]> => (await store.readStream(stream)).map((e) => e.type);

      it('appends to every stream, in the order given, at consecutive positions, each with its own revisions', async () => {
        const [a, b, c] = [uniqueStream('a'), uniqueStream('b'), uniqueStream('c')];
        await store.append(b, [anEvent('B0')], 'no_stream');
        await store.append(c, [anEvent('C0'), anEvent('C1')], 'no_stream');
        const head = await store.headPosition();
        const results = await appendToStreams([
          { stream: a, events: [anEvent('A1'), anEvent('A2')], expected: 'no_stream' },
          { stream: b, events: [anEvent('B1')], expected: 0 },
          { stream: c, events: [anEvent('C2')], expected: 'stream_exists' },
        ]);
        expect(results.map((r) => r.nextRevision)).to.deep.equal([1, 1, 2]);

        expect(await types(a)).to.deep.equal(['A1', 'A2']);
        expect(await types(b)).to.deep.equal(['B0', 'B1']);
        expect(await types(c)).to.deep.equal(['C0', 'C1', 'C2']);
        const [a1, a2] = await store.readStream(a);
        const [, b1] = await store.readStream(b);
        const [, , c2] = await store.readStream(c);
        expect([a2, b1, c2].map((e) => e!.position)).to.deep.equal(results.map((r) => r.position));
        expect([a1, a2, b1, c2].map((e) => e!.revision)).to.deep.equal([0, 1, 1, 2]);

        const all = (await readAllAfter(store, head)).filter((e) => [a, b, c].includes(e.stream));
        expect(all.map((e) => e.type)).to.deep.equal(['A1', 'A2', 'B1', 'C2']);
        const positions = all.map((e) => BigInt(e.position));
        positions.slice(1).forEach((position, i) => expect(position - positions[i]!).to.equal(1n));
        expect(await store.headPosition()).to.equal(results[2]!.position);
      });

      it('appends nothing to any stream when one stream is not at its expected revision, naming that stream', async () => {
        const [a, b, c] = [uniqueStream('a'), uniqueStream('b'), uniqueStream('c')];
        await store.append(b, [anEvent('B0'), anEvent('B1')], 'no_stream');
        await store.append(c, [anEvent('C0')], 'no_stream');
        const head = await store.headPosition();
        const error = await rejectionOf(
          appendToStreams([
            { stream: a, events: [anEvent('A1')], expected: 'no_stream' },
            { stream: b, events: [anEvent('B2')], expected: 0 },
            { stream: c, events: [anEvent('C1')], expected: 0 },
          ]),
        );
        expect(error).to.be.instanceOf(WrongExpectedRevisionError);
        expect(error).to.include({ stream: b, expected: 0, actual: 1 });
        expect(await types(a)).to.deep.equal([]);
        expect(await types(b)).to.deep.equal(['B0', 'B1']);
        expect(await types(c)).to.deep.equal(['C0']);
        expect((await readAllAfter(store, head)).filter((e) => [a, b, c].includes(e.stream))).to.deep.equal([]);
      });

      it('appends nothing when an event id is already stored', async () => {
        const [a, b] = [uniqueStream('a'), uniqueStream('b')];
        const stored = anEvent('Stored');
        await store.append(b, [stored], 'no_stream');
        const error = await rejectionOf(
          appendToStreams([
            { stream: a, events: [anEvent('A1')], expected: 'no_stream' },
            { stream: b, events: [stored], expected: 'any' },
          ]),
        );
        expect(error).to.be.instanceOf(DuplicateEventIdError);
        expect(await types(a)).to.deep.equal([]);
        expect(await types(b)).to.deep.equal(['Stored']);
      });

      it('refuses no stream, a stream given twice and a stream without events, appending nothing', async () => {
        const [a, b] = [uniqueStream('a'), uniqueStream('b')];
        expect(await rejectionOf(appendToStreams([]))).to.be.instanceOf(Error);
        expect(
          await rejectionOf(
            appendToStreams([
              { stream: a, events: [anEvent('A1')], expected: 'no_stream' },
              { stream: a, events: [anEvent('A2')], expected: 0 },
            ]),
          ),
        ).to.be.instanceOf(Error);
        expect(
          await rejectionOf(
            appendToStreams([
              { stream: a, events: [anEvent('A1')], expected: 'no_stream' },
              { stream: b, events: [], expected: 'any' },
            ]),
          ),
        ).to.be.instanceOf(Error);
        expect(await types(a)).to.deep.equal([]);
        expect(await types(b)).to.deep.equal([]);
      });

      it('lets exactly one of N concurrent appends expecting one stream at one revision succeed, each with its other streams', async () => {
        const shared = uniqueStream('shared');
        const own = Array.from({ length: 10 }, () => uniqueStream('own'));
        const outcomes = await Promise.allSettled(
          own.map((stream, i) =>
            appendToStreams([
              { stream: shared, events: [anEvent('Claimed', { i })], expected: 'no_stream' },
              { stream, events: [anEvent('Created', { i })], expected: 'no_stream' },
            ]),
          ),
        );
        const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
        expect(won).to.have.length(1);
        for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).to.include({ stream: shared });
        const [claim] = await store.readStream(shared);
        expect(claim!.data).to.deep.equal({ i: won[0] });
        const lengths = await Promise.all(own.map(async (stream) => (await store.readStream(stream)).length));
        expect(lengths).to.deep.equal(own.map((_, i) => (i === won[0] ? 1 : 0)));
      });

      it('keeps its own outcome beside concurrent single-stream appends', async () => {
        const [a, b, c] = [uniqueStream('a'), uniqueStream('b'), uniqueStream('c')];
        await store.append(c, [anEvent('C0')], 'no_stream');
        const outcomes = await Promise.allSettled([
          store.append(a, [anEvent('A0')], 'no_stream'),
          appendToStreams([
            { stream: b, events: [anEvent('B0')], expected: 'no_stream' },
            { stream: c, events: [anEvent('C1')], expected: 5 },
          ]),
          appendToStreams([
            { stream: b, events: [anEvent('B0 again')], expected: 'no_stream' },
            { stream: c, events: [anEvent('C1')], expected: 0 },
          ]),
          store.append(c, [anEvent('C wrong')], 3),
        ]);
        expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
        expect(await types(a)).to.deep.equal(['A0']);
        expect(await types(b)).to.deep.equal(['B0 again']);
        expect(await types(c)).to.deep.equal(['C0', 'C1']);
      });

      it('hands every event to subscribers, in order', async () => {
        const [a, b] = [uniqueStream('a'), uniqueStream('b')];
        const from = await store.headPosition();
        const seen: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({
          after: from,
          handle: async (batch) => {
            seen.push(...batch.filter((e) => e.stream === a || e.stream === b));
          },
        });
        try {
          await appendToStreams([
            { stream: a, events: [anEvent('A1')], expected: 'no_stream' },
            { stream: b, events: [anEvent('B1'), anEvent('B2')], expected: 'no_stream' },
          ]);
          await eventually(() => seen.length === 3, 5000);
          expect(seen.map((e) => [e.stream, e.type, e.revision])).to.deep.equal([
            [a, 'A1', 0],
            [b, 'B1', 0],
            [b, 'B2', 1],
          ]);
        } finally {
          await subscription.stop();
        }
      });
    });

    describe('readAll', () => {
      it('reads every stream in global order after a position (exclusive)', async () => {
        const head = await store.headPosition();
        const [a, b] = [uniqueStream('a'), uniqueStream('b')];
        const appended = [
          await store.append(a, [anEvent('A1')], 'no_stream'),
          await store.append(b, [anEvent('B1'), anEvent('B2')], 'no_stream'),
          await store.append(a, [anEvent('A2')], 0),
        ];
        const all = await readAllAfter(store, head);
        const mine = all.filter((e) => e.stream === a || e.stream === b);
        expect(mine.map((e) => e.type)).to.deep.equal(['A1', 'B1', 'B2', 'A2']);
        for (let i = 1; i < all.length; i++) {
          expect(comparePositions(all[i - 1]!.position, all[i]!.position)).to.be.lessThan(0);
        }
        expect(await store.headPosition()).to.equal(appended[2]!.position);

        const afterFirst = await readAllAfter(store, mine[0]!.position);
        expect(afterFirst.filter((e) => e.stream === a || e.stream === b).map((e) => e.type)).to.deep.equal([
          'B1',
          'B2',
          'A2',
        ]);
      });

      it('pages with maxCount', async () => {
        const head = await store.headPosition();
        const stream = uniqueStream();
        await store.append(stream, [1, 2, 3, 4, 5].map((n) => anEvent('N', { n })), 'no_stream');
        const first = await store.readAll({ after: head, maxCount: 2 });
        expect(first).to.have.length(2);
        const rest = await store.readAll({ after: first[1]!.position, maxCount: 100 });
        const mine = [...first, ...rest].filter((e) => e.stream === stream);
        expect(mine.map((e) => (e.data as { n: number }).n)).to.deep.equal([1, 2, 3, 4, 5]);
      });
    });

    describe('subscribeToAll', () => {
      it('catches up from a position, then follows live appends in order', async () => {
        const stream = uniqueStream();
        await store.append(stream, [anEvent('Old')], 'no_stream');
        const from = await store.headPosition();
        await store.append(stream, [anEvent('Caught1'), anEvent('Caught2')], 0);
        const seen: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({
          after: from,
          handle: async (batch) => {
            seen.push(...batch.filter((e) => e.stream === stream));
          },
        });
        try {
          await eventually(() => seen.length === 2, 5000);
          await store.append(stream, [anEvent('Live1')], 2);
          await store.append(stream, [anEvent('Live2')], 3);
          await eventually(() => seen.length === 4, 5000);
          expect(seen.map((e) => e.type)).to.deep.equal(['Caught1', 'Caught2', 'Live1', 'Live2']);
          expect(seen.map((e) => e.revision)).to.deep.equal([1, 2, 3, 4]);
          await eventually(() => subscription.position === seen[3]!.position, 5000);
        } finally {
          await subscription.stop();
        }
      });

      it('offers a failed batch again until the handler succeeds, never skipping an event', async () => {
        const stream = uniqueStream();
        const from = await store.headPosition();
        await store.append(stream, [1, 2, 3].map((n) => anEvent('N', { n })), 'no_stream');
        const handled: number[] = [];
        let failures = 0;
        const errors: number[] = [];
        const subscription = store.subscribeToAll({
          after: from,
          handle: async (batch) => {
            const mine = batch.filter((e) => e.stream === stream).map((e) => (e.data as { n: number }).n);
            if (mine.includes(2) && failures < 2) {
              failures++;
              throw new Error('receiver down');
            }
            handled.push(...mine);
          },
          onError: (_error, attempt) => errors.push(attempt),
        });
        try {
          await eventually(() => handled.includes(3), 10_000);
          expect(failures).to.equal(2);
          expect(errors).to.deep.equal([1, 2]);
          // Events before the failing one may have been handled in an earlier batch; none is lost or reordered.
          expect(handled.filter((n) => n === 2)).to.have.length(1);
          expect([...new Set(handled)]).to.deep.equal([1, 2, 3]);
        } finally {
          await subscription.stop();
        }
      });

      it('delivers nothing after stop', async () => {
        const stream = uniqueStream();
        const from = await store.headPosition();
        const seen: string[] = [];
        const subscription = store.subscribeToAll({
          after: from,
          handle: async (batch) => {
            seen.push(...batch.filter((e) => e.stream === stream).map((e) => e.type));
          },
        });
        await store.append(stream, [anEvent('Before')], 'no_stream');
        await eventually(() => seen.length === 1, 5000);
        await subscription.stop();
        await store.append(stream, [anEvent('After')], 0);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(seen).to.deep.equal(['Before']);
      });
    });

    if (options.ownCommitsWakeSubscriptions) {
      describe('subscribeToAll, woken by a commit of this store (decisions 89 and 133)', () => {
        /** A subscription from the head that notes each handled event of `streams`, asleep once it handled a first event. */
        const idleSubscription = async (streams: readonly string[], handled: string[]): Promise<Subscription> => {
          const marker = uniqueStream('marker');
          const watched = new Set(streams);
          let markerSeen = false;
          const subscription = store.subscribeToAll({
            after: await store.headPosition(),
            handle: async (batch) => {
              for (const event of batch) {
                if (event.stream === marker) markerSeen = true;
                if (watched.has(event.stream)) handled.push(`handled ${event.stream}`);
              }
            },
          });
          await store.append(marker, [anEvent('Marker')], 'no_stream');
          await eventually(() => markerSeen, 5000);
          await sleep(20);
          return subscription;
        };

        it("hands each append's events over once its caller has answered, not between the caller's steps", async () => {
          const streams = [uniqueStream(), uniqueStream()];
          const seen: string[] = [];
          const subscription = await idleSubscription(streams, seen);
          try {
            // Callers that answer after many promise steps, as a request through Koa's middleware does.
            const answered = (stream: string) => async () => {
              for (let step = 0; step < 50; step++) await null;
              seen.push(`answered ${stream}`);
            };
            // Two appends of one turn (one group commit where the store groups them).
            await Promise.all(streams.map((stream) => store.append(stream, [anEvent('Pinged')], 'no_stream').then(answered(stream))));
            await eventually(() => streams.every((stream) => seen.includes(`handled ${stream}`)), 5000);
            for (const stream of streams) {
              expect(seen.indexOf(`answered ${stream}`), seen.join(', ')).to.be.within(0, seen.indexOf(`handled ${stream}`) - 1);
            }
          } finally {
            await subscription.stop();
          }
        });

        it('hands the events of a commit it was woken for to a stop asked before it read them', async () => {
          const stream = uniqueStream();
          const handled: string[] = [];
          const subscription = await idleSubscription([stream], handled);
          // The append answers, and its caller stops the subscription at once, before the turn it reads in.
          const { position } = await store.append(stream, [anEvent('Last')], 'no_stream');
          await subscription.stop();
          expect(handled).to.deep.equal([`handled ${stream}`]);
          expect(comparePositions(subscription.position!, position)).to.be.at.least(0);
        });
      });
    }
  });
};

const readAllAfter = async (store: EventStore, after: string | null): Promise<RecordedEvent[]> => {
  const out: RecordedEvent[] = [];
  let from = after;
  for (;;) {
    const batch = await store.readAll({ after: from, maxCount: 500 });
    if (batch.length === 0) return out;
    out.push(...batch);
    from = batch[batch.length - 1]!.position;
  }
};
