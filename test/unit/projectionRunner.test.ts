import { expect } from 'chai';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { MemoryReadModelStore } from '../../src/adapters/memory/MemoryReadModelStore.js';
import { ProjectionRunner } from '../../src/application/subscriptions/ProjectionRunner.js';
import { ReadModelsAheadOfLogError, ReadModelsOfAnotherLogError } from '../../src/application/subscriptions/ReadModelsAheadOfLogError.js';
import { ResumePointNotInLogError, type EventStore, type SubscribeOptions } from '../../src/application/ports/EventStore.js';
import { replayReadModels } from '../../src/application/replay/replayReadModels.js';
import type { DocumentCollection, ReadModelDocument, ReadModelStore } from '../../src/application/ports/ReadModelStore.js';
import { taskProjection, type TaskCreatedData, type TaskDoc } from '../support/taskProjection.js';
import { anEvent, eventually } from '../support/events.js';
import { captureLogger } from '../support/captureLogger.js';
import { tempDir } from '../support/tempStore.js';
import { UpcastingEventStore } from '../../src/application/versioning/UpcastingEventStore.js';
import { sleep } from '../support/events.js';
import { STORED_EVENT_TYPES } from '../../src/features/index.js';

const COMPANY = 'co-1';
const taskCreated = (id: string, title = 'Task') =>
  anEvent('TaskCreated', { id, title, status: 'open', points: 1, tags: [], owner: null, at: '2026-01-01T00:00:00.000Z' } satisfies TaskCreatedData, COMPANY);

/** Memory documents and checkpoints that claim to be durable: what a MongoDB store looks like to the runner. */
class DurableMemoryStore extends MemoryReadModelStore {
  override readonly durable = true as unknown as false;
}

describe('ProjectionRunner', () => {
  let dir: ReturnType<typeof tempDir>;
  let eventStore: SqliteEventStore;
  let readModels: ReadModelStore;
  let tasks: DocumentCollection<TaskDoc>;
  let runner: ProjectionRunner;
  const logger = captureLogger();

  const newRunner = (collections: DocumentCollection<ReadModelDocument>[] = [tasks as never], progressEveryMs?: number) =>
    new ProjectionRunner({ eventStore, readModels, collections, logger, ...(progressEveryMs !== undefined ? { progressEveryMs } : {}) });

  beforeEach(() => {
    dir = tempDir();
    eventStore = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
    readModels = new MemoryReadModelStore();
    tasks = readModels.collection(taskProjection);
    logger.lines.length = 0;
  });
  afterEach(async () => {
    await runner?.stop();
    await eventStore.close();
    dir.dispose();
  });

  describe('given a log written before start', () => {
    it('rebuilds the in-memory read models before start resolves, and logs the time it took', async () => {
      for (let i = 0; i < 30; i++) await eventStore.append(`task-${i}`, [taskCreated(`t${i}`)], 'no_stream');
      runner = newRunner();
      await runner.start();
      expect((await tasks.list({ companyId: COMPANY, filters: [], page: 1, limit: 100, order: 'asc' })).total).to.equal(30);
      expect(runner.position).to.equal(await eventStore.headPosition());
      const done = logger.lines.find((l) => l.msg === 'read models caught up with the log');
      expect(done?.obj).to.include({ applied: 30 });
      expect(done?.obj).to.have.property('ms').that.is.a('number');
    });

    it('logs progress lines while catching up a long log', async () => {
      const events = Array.from({ length: 3000 }, (_, i) => taskCreated(`t${i}`));
      for (let i = 0; i < events.length; i += 500) await eventStore.append(`bulk-${i}`, events.slice(i, i + 500), 'no_stream');
      runner = newRunner(undefined, 0);
      await runner.start();
      const progress = logger.lines.filter((l) => l.msg === 'read-model catch-up in progress');
      expect(progress.length).to.be.greaterThan(0);
      expect(progress[0]!.obj).to.have.property('eventsPerSecond');
    });
  });

  describe('given a running runner', () => {
    beforeEach(async () => {
      runner = newRunner();
      await runner.start();
    });

    it('waitFor resolves once the write is visible in the read model (read-your-writes)', async () => {
      const { position } = await eventStore.append('task-1', [taskCreated('t1', 'Mine')], 'no_stream');
      expect(await runner.waitFor(position, 2000)).to.equal(true);
      expect(await tasks.get(COMPANY, 't1')).to.include({ title: 'Mine' });
    });

    it('tells onApplied listeners after each batch, its position already applied', async () => {
      const told: (string | null)[] = [];
      const stop = runner.onApplied(() => told.push(runner.position));
      const { position } = await eventStore.append('task-1', [taskCreated('t1', 'Mine')], 'no_stream');
      await runner.waitFor(position, 2000);
      expect(told).to.deep.equal([position]);
      stop();
      const second = await eventStore.append('task-2', [taskCreated('t2')], 'no_stream');
      await runner.waitFor(second.position, 2000);
      expect(told).to.deep.equal([position]);
    });

    it('waitFor resolves at once for a position already applied', async () => {
      const { position } = await eventStore.append('task-1', [taskCreated('t1')], 'no_stream');
      await runner.waitFor(position, 2000);
      expect(await runner.waitFor(position, 0)).to.equal(true);
    });

    it('waitFor answers false when the position is not reached in time', async () => {
      expect(await runner.waitFor('999999', 30)).to.equal(false);
    });

    it('reports no lag when caught up', async () => {
      const { position } = await eventStore.append('task-1', [taskCreated('t1')], 'no_stream');
      await runner.waitFor(position, 2000);
      expect(await runner.lag()).to.deep.equal({ position, head: position, caughtUp: true, lagMs: 0 });
    });

    it('reports the age of the oldest unapplied event when behind', async () => {
      await runner.stop();
      await eventStore.append('task-1', [taskCreated('t1')], 'no_stream');
      await new Promise((resolve) => setTimeout(resolve, 20));
      const lag = await runner.lag();
      expect(lag.caughtUp).to.equal(false);
      expect(lag.lagMs).to.be.at.least(15);
    });
  });

  it('offers a failed batch again and loses nothing', async () => {
    let failures = 0;
    const flaky: DocumentCollection<TaskDoc> = Object.assign(Object.create(tasks) as DocumentCollection<TaskDoc>, {
      apply: async (events: Parameters<DocumentCollection<TaskDoc>['apply']>[0]) => {
        if (failures++ < 2) throw new Error('store unavailable');
        return tasks.apply(events);
      },
    });
    runner = newRunner([flaky as never]);
    await runner.start();
    const { position } = await eventStore.append('task-1', [taskCreated('t1')], 'no_stream');
    expect(await runner.waitFor(position, 5000)).to.equal(true);
    expect(await tasks.get(COMPANY, 't1')).to.not.equal(null);
    expect(logger.lines.filter((l) => l.msg === 'read-model batch failed; retrying')).to.have.length(2);
  });

  it('resumes durable read models from their checkpoint after a restart', async () => {
    readModels = new DurableMemoryStore();
    tasks = readModels.collection(taskProjection);
    await eventStore.append('task-1', [taskCreated('t1')], 'no_stream');
    runner = newRunner();
    await runner.start();
    await runner.stop();
    const checkpoint = await readModels.checkpoints.load('read-models');
    expect(checkpoint).to.equal(await eventStore.headPosition());

    const { position } = await eventStore.append('task-2', [taskCreated('t2')], 'no_stream');
    const seen: string[] = [];
    const spy: DocumentCollection<TaskDoc> = Object.assign(Object.create(tasks) as DocumentCollection<TaskDoc>, {
      apply: async (events: Parameters<DocumentCollection<TaskDoc>['apply']>[0]) => {
        seen.push(...events.map((e) => (e.data as { id: string }).id));
        return tasks.apply(events);
      },
    });
    runner = newRunner([spy as never]);
    await runner.start();
    await eventually(() => runner.position === position);
    expect(seen).to.deep.equal(['t2']);
  });

  describe('given durable read models whose checkpoint is past the end of the log (another log, or a restored older copy)', () => {
    const aheadOf = async (head: 'empty' | 'one event') => {
      readModels = new DurableMemoryStore();
      tasks = readModels.collection(taskProjection);
      await readModels.checkpoints.save('read-models', '7');
      if (head === 'one event') await eventStore.append('task-1', [taskCreated('t1')], 'no_stream');
    };

    const refusal = () =>
      runner.start().then(
        () => null,
        (failure: unknown) => failure,
      );

    it('refuses to start on an empty log, naming both, and leaves the checkpoint as it was', async () => {
      await aheadOf('empty');
      runner = newRunner();
      const error = await refusal();
      expect(error).to.be.instanceOf(ReadModelsAheadOfLogError);
      expect(error).to.include({ checkpoint: 'read-models', position: '7', head: null });
      expect((error as Error).message).to.match(/hold the log up to position 7, but the log is empty: .*chronicle replay/);
      expect(await readModels.checkpoints.load('read-models')).to.equal('7');
    });

    it('refuses to start on a shorter log, applying none of it', async () => {
      await aheadOf('one event');
      runner = newRunner();
      const error = await refusal();
      expect(error).to.be.instanceOf(ReadModelsAheadOfLogError);
      expect(error).to.include({ position: '7', head: '1' });
      expect((error as Error).message).to.match(/but the log ends at position 1:/);
      expect(await tasks.get(COMPANY, 't1')).to.equal(null);
    });

    it('starts once a replay rebuilt them from this log, and applies the events appended after it', async () => {
      await aheadOf('one event');
      await replayReadModels({ eventStore, readModels, projections: [taskProjection as never] });
      runner = newRunner();
      await runner.start();
      expect(await tasks.get(COMPANY, 't1')).to.not.equal(null);
      // Its position is one the old checkpoint counted as applied: applied all the same.
      const { position } = await eventStore.append('task-2', [taskCreated('t2')], 'no_stream');
      expect(Number(position)).to.be.lessThan(7);
      expect(await runner.waitFor(position, 2000)).to.equal(true);
      expect(await tasks.get(COMPANY, 't2')).to.not.equal(null);
    });
  });

  describe('given an event of the log that this release cannot read', () => {
    const unreadable = () => ({
      ...anEvent('ContactUpdated', { contactId: 'c-1', written: 'by a newer release' }, COMPANY),
      metadata: { source: 'api' as const, correlationId: 'c', companyId: COMPANY, schemaVersion: 7 },
    });

    it('applies everything before it, then stops once with the event named, never retrying it; start() returns', async () => {
      await eventStore.append('task-1', [taskCreated('t1')], 'no_stream');
      const { position: before } = await eventStore.append('task-2', [taskCreated('t2')], 'no_stream');
      const { position: bad } = await eventStore.append('contact-c-1', [unreadable()], 'no_stream');
      await eventStore.append('task-3', [taskCreated('t3')], 'no_stream');
      runner = new ProjectionRunner({ eventStore: new UpcastingEventStore(eventStore, { types: STORED_EVENT_TYPES }), readModels, collections: [tasks as never], logger });
      await runner.start();

      expect(runner.failure).to.include({ stream: 'contact-c-1', type: 'ContactUpdated', position: bad, version: 7 });
      expect(runner.position).to.equal(before);
      expect(await tasks.get(COMPANY, 't2')).to.not.equal(null);
      expect(await tasks.get(COMPANY, 't3')).to.equal(null);
      await sleep(300); // a retry would come within 50 ms, and again
      const stopped = logger.lines.filter((l) => l.level === 'error');
      expect(stopped).to.have.length(1);
      expect(stopped[0]!.msg).to.match(/read models stopped: an event of the log cannot be read/);
      expect(stopped[0]!.obj).to.deep.include({ event: { eventId: runner.failure!.eventId, stream: 'contact-c-1', type: 'ContactUpdated', position: bad, version: 7 } });
      expect(logger.lines.some((l) => l.msg === 'read-model batch failed; retrying')).to.equal(false);

      // The lag is that of the event it stopped at (measured without reading it: it cannot be read).
      const lag = await runner.lag();
      expect(lag).to.include({ position: before, caughtUp: false });
      expect(lag.head).to.equal(await eventStore.headPosition());
      expect(lag.lagMs).to.be.at.least(300).and.below(60_000);
    });

    it('stops at it when it is appended while running', async () => {
      runner = new ProjectionRunner({ eventStore: new UpcastingEventStore(eventStore, { types: STORED_EVENT_TYPES }), readModels, collections: [tasks as never], logger });
      await runner.start();
      await eventStore.append('task-1', [taskCreated('t1')], 'no_stream');
      await eventStore.append('contact-c-1', [unreadable()], 'no_stream');
      await eventually(() => runner.failure !== null);
      expect(await tasks.get(COMPANY, 't1')).to.not.equal(null);
      expect(runner.failure!.version).to.equal(7);
    });
  });
});

describe('ProjectionRunner: a log that no longer holds where the read models stand, found by the subscription', () => {
  const stubLog = (head: string | null, failWith: ResumePointNotInLogError, at: 'start' | 'later') => {
    let fail: (() => void) | null = null;
    const store = {
      kind: 'eventstoredb',
      headPosition: async () => head,
      readAll: async () => [],
      subscribeToAll: (options: SubscribeOptions) => {
        fail = () => options.onFailed?.(failWith);
        if (at === 'start') setImmediate(fail);
        return { position: null, stop: async () => undefined };
      },
    } as unknown as EventStore;
    return { store, failNow: () => fail?.() };
  };
  const durable = () => {
    const store = new DurableMemoryStore();
    return { store, collections: [store.collection(taskProjection) as never] };
  };

  it('fails its start with the read models’ own error when the server says no event begins where they stand', async () => {
    const { store: readModels, collections } = durable();
    await readModels.checkpoints.save('read-models', '15');
    const { store } = stubLog('20', new ResumePointNotInLogError('15', null, { eventId: null }), 'start');
    const runner = new ProjectionRunner({ eventStore: store, readModels, collections, logger: captureLogger() });
    const refused = await runner.start().catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(ReadModelsOfAnotherLogError);
    expect((refused as Error).message).to.contain('but the log has no event there');
  });

  it('after its start, tells onFailed (the process stops) when the log was put back behind the read models', async () => {
    const { store: readModels, collections } = durable();
    const failures: Error[] = [];
    const { store, failNow } = stubLog(null, new ResumePointNotInLogError('20', 'e-20', { head: '10' }), 'later');
    const runner = new ProjectionRunner({ eventStore: store, readModels, collections, logger: captureLogger(), onFailed: (error) => failures.push(error) });
    await runner.start();
    failNow();
    expect(failures).to.have.length(1);
    expect(failures[0]).to.be.instanceOf(ReadModelsAheadOfLogError);
    expect(failures[0]!.message).to.contain('hold the log up to position 20, but the log ends at position 10');
  });
});
