import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { handleCommand } from '../../src/application/commands/handleCommand.js';
import { UndecodableEventError } from '../../src/application/versioning/UndecodableEventError.js';
import { ConcurrencyExhaustedError } from '../../src/application/commands/ConcurrencyExhaustedError.js';
import type { EventStore } from '../../src/application/ports/EventStore.js';
import { CounterEvent, counterDecider, type CounterCommand } from '../support/counterDecider.js';
import { specFor } from '../support/givenWhenThen.js';
import { anEvent } from '../support/events.js';

const incremented = (by: number): CounterEvent => ({ type: 'Incremented', data: { by } });
const spec = specFor(counterDecider);

describe('counter decider (test decider)', () => {
  describe('given a new counter', () => {
    it('increments', () => spec.given().when({ type: 'increment', by: 2, max: 10 }).then(incremented(2)));
    it('emits nothing on reset', () => spec.given().when({ type: 'reset' }).then());
  });
  describe('given a counter at its ceiling', () => {
    it('refuses to pass it', () =>
      spec
        .given(incremented(4), incremented(6))
        .when({ type: 'increment', by: 1, max: 10 })
        .thenError({ kind: 'LimitExceeded', value: 10 }));
    it('resets', () => spec.given(incremented(10)).when({ type: 'reset' }).then({ type: 'Reset', data: {} }));
  });
});

describe('handleCommand', () => {
  let dir: string;
  let store: SqliteEventStore;
  let ids: number;
  const metadata = { source: 'api' as const, correlationId: 'req-1', companyId: 'co-1', keyId: 'key-1' };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chronicle-cmd-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'));
    ids = 0;
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (command: CounterCommand, eventStore: EventStore = store, maxAttempts?: number) =>
    handleCommand(
      { eventStore, newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}` },
      {
        decider: counterDecider,
        eventCodec: CounterEvent,
        stream: 'counter-1',
        command,
        metadata,
        ...(maxAttempts ? { maxAttempts } : {}),
      },
    );

  describe('given an empty stream', () => {
    it('appends the decided events with their metadata and returns the new state and position', async () => {
      const result = await run({ type: 'increment', by: 3, max: 10 });
      if (E.isLeft(result)) return expect.fail('expected success');
      expect(result.right.state).to.deep.equal({ value: 3 });
      expect(result.right.revision).to.equal(0);
      const [stored] = await store.readStream('counter-1');
      expect(stored).to.include({ type: 'Incremented', id: '00000000-0000-4000-8000-000000000001' });
      expect(stored!.metadata).to.deep.equal(metadata);
      expect(result.right.position).to.equal(stored!.position);
    });

    it('appends nothing and returns no position when the decision is no events', async () => {
      const result = await run({ type: 'reset' });
      expect(result).to.deep.equal(E.right({ events: [], state: { value: 0 }, revision: -1, position: null }));
      expect(await store.readStream('counter-1')).to.deep.equal([]);
    });
  });

  describe('given a stream with events', () => {
    beforeEach(async () => {
      await run({ type: 'increment', by: 8, max: 10 });
    });

    it('folds the stream before deciding', async () => {
      const result = await run({ type: 'increment', by: 2, max: 10 });
      expect(E.isRight(result) && result.right.state).to.deep.equal({ value: 10 });
    });

    it('returns the domain error and appends nothing', async () => {
      const result = await run({ type: 'increment', by: 5, max: 10 });
      expect(result).to.deep.equal(E.left({ kind: 'LimitExceeded', value: 8 }));
      expect(await store.readStream('counter-1')).to.have.length(1);
    });

    it('throws when a stored event does not decode', async () => {
      await store.append('counter-1', [anEvent('Incremented', { by: 'two' })], 'any');
      let error: unknown;
      await run({ type: 'increment', by: 1, max: 100 }).catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(UndecodableEventError);
    });
  });

  describe('when another writer appends between the read and the append', () => {
    /** A store whose first `append` is preceded by a competing write to the same stream. */
    const racingStore = (competingWrites: number): EventStore => {
      let races = 0;
      return Object.assign(Object.create(store) as EventStore, {
        append: async (...args: Parameters<EventStore['append']>) => {
          if (races++ < competingWrites) {
            await store.append('counter-1', [{ ...anEvent('Incremented', { by: 1 }), metadata }], 'any');
          }
          return store.append(...args);
        },
      });
    };

    it('reads again, decides again on the new state, and appends', async () => {
      const result = await run({ type: 'increment', by: 2, max: 10 }, racingStore(1));
      expect(E.isRight(result) && result.right.state).to.deep.equal({ value: 3 });
      expect((await store.readStream('counter-1')).map((e) => (e.data as { by: number }).by)).to.deep.equal([1, 2]);
    });

    it('returns the domain error when the new state no longer allows the command', async () => {
      await run({ type: 'increment', by: 8, max: 10 });
      const result = await run({ type: 'increment', by: 2, max: 10 }, racingStore(1));
      expect(result).to.deep.equal(E.left({ kind: 'LimitExceeded', value: 9 }));
    });

    it('gives up after the bounded number of attempts', async () => {
      let error: unknown;
      await run({ type: 'increment', by: 1, max: 100 }, racingStore(10), 3).catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(ConcurrencyExhaustedError);
      expect((error as ConcurrencyExhaustedError).attempts).to.equal(3);
      expect(await store.readStream('counter-1')).to.have.length(3);
    });
  });

  describe('given a stream assumed new (newStream)', () => {
    const runNew = (eventStore: EventStore = store) =>
      handleCommand(
        { eventStore, newId: randomUUID },
        { decider: counterDecider, eventCodec: CounterEvent, stream: 'counter-1', command: { type: 'increment', by: 2, max: 10 }, metadata, newStream: true },
      );

    it('decides on the initial state without reading the stream, and appends expecting no stream', async () => {
      let reads = 0;
      const counting: EventStore = Object.assign(Object.create(store) as EventStore, {
        readStream: (...args: Parameters<EventStore['readStream']>) => {
          reads += 1;
          return store.readStream(...args);
        },
      });
      const result = await runNew(counting);
      expect(E.isRight(result) && result.right.revision).to.equal(0);
      expect(reads).to.equal(0);
    });

    it('reads the stream on the next attempt when it exists after all, and decides on it', async () => {
      await store.append('counter-1', [{ ...anEvent('Incremented', { by: 9 }), metadata }], 'no_stream');
      const result = await runNew();
      expect(result).to.deep.equal(E.left({ kind: 'LimitExceeded', value: 9 }));
      expect(await store.readStream('counter-1')).to.have.length(1);
    });
  });

  it('serialises concurrent commands on one stream without losing any', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        handleCommand(
          { eventStore: store, newId: randomUUID },
          { decider: counterDecider, eventCodec: CounterEvent, stream: 'counter-2', command: { type: 'increment', by: 1, max: 100 }, metadata },
        ),
      ),
    );
    expect(results.every(E.isRight)).to.equal(true);
    const stream = await store.readStream('counter-2');
    expect(stream.map((e) => e.revision)).to.deep.equal([0, 1, 2, 3, 4]);
  });
});
