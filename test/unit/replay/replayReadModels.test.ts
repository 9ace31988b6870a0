import { expect } from 'chai';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { READ_MODELS_CHECKPOINT } from '../../../src/application/subscriptions/ProjectionRunner.js';
import type { Projection, ReadModelDocument } from '../../../src/application/ports/ReadModelStore.js';
import {
  ReplayConflictError,
  etaMs,
  progressFraction,
  replayReadModels,
  type ReplayProgress,
} from '../../../src/application/replay/replayReadModels.js';
import { taskProjection, type TaskCreatedData } from '../../support/taskProjection.js';
import { anEvent } from '../../support/events.js';
import { tempDir } from '../../support/tempStore.js';

const COMPANY = 'co-1';
const taskCreated = (id: string, title = `Task ${id}`) =>
  anEvent('TaskCreated', { id, title, status: 'open', points: 1, tags: [], owner: null, at: '2026-01-01T00:00:00.000Z' } satisfies TaskCreatedData, COMPANY);
const projections = [taskProjection] as unknown as readonly Projection<ReadModelDocument>[];

/** Memory documents and checkpoints that claim to be durable: what a MongoDB store looks like to a replay. */
class DurableMemoryStore extends MemoryReadModelStore {
  override readonly durable = true as unknown as false;
}

describe('replayReadModels', () => {
  let dir: ReturnType<typeof tempDir>;
  let eventStore: SqliteEventStore;

  beforeEach(() => {
    dir = tempDir('chronicle-replay-');
    eventStore = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
  });
  afterEach(async () => {
    await eventStore.close();
    dir.dispose();
  });

  const appendTasks = async (count: number, from = 0): Promise<void> => {
    const events = Array.from({ length: count }, (_, i) => taskCreated(`t${from + i}`));
    for (let i = 0; i < events.length; i += 250) await eventStore.append(`bulk-${from + i}`, events.slice(i, i + 250), 'no_stream');
  };
  const ids = async (readModels: MemoryReadModelStore): Promise<string[]> =>
    (await readModels.collection(taskProjection).list({ companyId: COMPANY, filters: [], page: 1, limit: 5000, order: 'asc' })).items.map((d) => d.id);

  it('rebuilds every read model from the whole log in batches, reporting progress after each', async () => {
    await appendTasks(2500);
    const readModels = new MemoryReadModelStore();
    const progress: ReplayProgress[] = [];
    const summary = await replayReadModels({ eventStore, readModels, projections, batchSize: 1000, onProgress: (p) => progress.push(p) });
    const head = await eventStore.headPosition();
    expect(summary).to.include({ events: 2500, collections: 1, position: head });
    expect(summary.eventsPerSecond).to.be.a('number');
    expect(progress.map((p) => p.events)).to.deep.equal([1000, 2000, 2500]);
    expect(progress.every((p) => p.head === head)).to.equal(true);
    expect(progress[2]!.position).to.equal(head);
    expect(await ids(readModels)).to.have.length(2500);
    expect(await readModels.checkpoints.load(READ_MODELS_CHECKPOINT)).to.equal(head);
  });

  it('replaces what the read models held, through the collections readers already hold', async () => {
    await appendTasks(3);
    const readModels = new MemoryReadModelStore();
    const served = readModels.collection(taskProjection);
    await served.apply([{ ...taskCreated('stale'), stream: 's', revision: 0, position: '1', recordedAt: '' }]);
    await replayReadModels({ eventStore, readModels, projections });
    expect((await served.list({ companyId: COMPANY, filters: [], page: 1, limit: 10, order: 'asc' })).items.map((d) => d.id)).to.deep.equal(['t0', 't1', 't2']);
  });

  it('stops at the head the log had when it started', async () => {
    await appendTasks(1500);
    const head = await eventStore.headPosition();
    const readModels = new MemoryReadModelStore();
    let reads = 0;
    // Another writer appends while the replay runs, just before its second read: left to the projector.
    const writtenMeanwhile: SqliteEventStore = Object.assign(Object.create(eventStore) as SqliteEventStore, {
      readAll: async (options: Parameters<SqliteEventStore['readAll']>[0]) => {
        if (++reads === 2) await appendTasks(10, 5000);
        return eventStore.readAll(options);
      },
    });
    const summary = await replayReadModels({ eventStore: writtenMeanwhile, readModels, projections, batchSize: 1000 });
    expect(reads).to.be.greaterThanOrEqual(2);
    expect(Number(await eventStore.headPosition())).to.equal(Number(head) + 10);
    expect(summary).to.include({ events: 1500, position: head });
    expect(await ids(readModels)).to.have.length(1500);
  });

  it('replays an empty log into empty read models', async () => {
    const readModels = new MemoryReadModelStore();
    expect(await replayReadModels({ eventStore, readModels, projections })).to.include({ events: 0, position: null, collections: 1 });
    expect(await ids(readModels)).to.deep.equal([]);
  });

  it('on durable read models, refuses to swap when the checkpoint moved (a projector ran) and leaves them as they were', async () => {
    await appendTasks(1500);
    const readModels = new DurableMemoryStore();
    const served = readModels.collection(taskProjection);
    await served.apply([{ ...taskCreated('live'), stream: 's', revision: 0, position: '1', recordedAt: '' }]);
    await readModels.checkpoints.save(READ_MODELS_CHECKPOINT, '1');
    const replay = replayReadModels({
      eventStore,
      readModels,
      projections,
      batchSize: 1000,
      onProgress: () => void readModels.checkpoints.save(READ_MODELS_CHECKPOINT, '2'),
    });
    const error = await replay.then(
      () => expect.fail('the replay swapped'),
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(ReplayConflictError);
    expect((error as Error).message).to.contain('moved from 1 to 2');
    expect(await ids(readModels)).to.deep.equal(['live']);
    expect(await readModels.checkpoints.load(READ_MODELS_CHECKPOINT)).to.equal('2');
  });

  it('on durable read models with a still checkpoint, swaps and saves the checkpoint at the replayed position', async () => {
    await appendTasks(20);
    const readModels = new DurableMemoryStore();
    await readModels.checkpoints.save(READ_MODELS_CHECKPOINT, '7');
    const summary = await replayReadModels({ eventStore, readModels, projections });
    expect(await readModels.checkpoints.load(READ_MODELS_CHECKPOINT)).to.equal(summary.position);
    expect(await ids(readModels)).to.have.length(20);
  });
});

describe('replay progress', () => {
  it('is the share of the head reached, for positions of any size', () => {
    expect(progressFraction('0', '200')).to.equal(0);
    expect(progressFraction('50', '200')).to.equal(0.25);
    expect(progressFraction('200', '200')).to.equal(1);
    expect(progressFraction('300', '200')).to.equal(1);
    // EventStoreDB positions exceed 2^53.
    expect(progressFraction('18446744073709551616', '73786976294838206464')).to.equal(0.25);
  });

  it('estimates the time left at the rate so far', () => {
    expect(etaMs(0.25, 1000)).to.equal(3000);
    expect(etaMs(1, 5000)).to.equal(0);
    expect(etaMs(0, 1000)).to.equal(null);
  });
});
