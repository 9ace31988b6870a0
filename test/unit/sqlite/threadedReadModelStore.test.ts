import { expect } from 'chai';
import { join } from 'node:path';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/SqliteReadModelStore.js';
import { ThreadedReadModelStore } from '../../../src/adapters/sqlite/ThreadedReadModelStore.js';
import { taskProjection } from '../../support/taskProjection.js';
import { tempDir } from '../../support/tempStore.js';

const taskCreated = (position: number, id: string): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
  stream: `task-${id}`,
  revision: 0,
  position: String(position),
  type: 'TaskCreated',
  data: { id, title: id, status: 'open', points: 1, tags: [], owner: null, at: '2026-01-01T00:00:00.000Z' },
  metadata: { source: 'system', correlationId: 'c', companyId: 'acme' },
  recordedAt: '2026-01-01T00:00:00.000Z',
});

describe('ThreadedReadModelStore (the SQLite read models’ batches on a worker thread)', function () {
  this.timeout(20_000);
  let dir: ReturnType<typeof tempDir>;
  let store: ThreadedReadModelStore;

  beforeEach(() => {
    dir = tempDir('chronicle-threaded-');
    const file = join(dir.path, 'read-models.sqlite');
    store = new ThreadedReadModelStore(SqliteReadModelStore.open(file), {
      file,
      entry: new URL('../../support/readModelThreadTestMain.js', import.meta.url),
    });
  });
  afterEach(async () => {
    await store.close();
    dir.dispose();
  });

  it('given a batch, when the thread committed it, then the event loop’s connection reads it and its checkpoint', async () => {
    const tasks = store.collection(taskProjection);
    await store.applyBatch([tasks as never], [taskCreated(1, 't1'), taskCreated(2, 't2')], 'runner');
    expect((await tasks.list({ companyId: 'acme', filters: [], page: 1, limit: 10, order: 'asc' })).items.map((doc) => doc.id)).to.deep.equal(['t1', 't2']);
    expect(await store.checkpoints.load('runner')).to.equal('2');
  });

  it('given a thread that ends mid-batch, when the batch fails, then the next batch starts a new thread and applies', async () => {
    const tasks = store.collection(taskProjection);
    const error = await store.applyBatch([tasks as never], [taskCreated(1, 't1')], 'crash-now').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/exited with code 7/);
    expect(await tasks.get('acme', 't1'), 'nothing of the failed batch').to.equal(null);
    await store.applyBatch([tasks as never], [taskCreated(1, 't1')], 'runner');
    expect(await tasks.get('acme', 't1')).to.include({ id: 't1' });
  });

  it('given batches in flight, when the store closes, then they commit first', async () => {
    const tasks = store.collection(taskProjection);
    const applied = [1, 2, 3].map((n) => store.applyBatch([tasks as never], [taskCreated(n, `t${n}`)], 'runner'));
    await store.close();
    await Promise.all(applied);
    const again = SqliteReadModelStore.open(join(dir.path, 'read-models.sqlite'));
    try {
      expect(await again.checkpoints.load('runner')).to.equal('3');
    } finally {
      await again.close();
    }
    const refused = await store.applyBatch([tasks as never], [taskCreated(4, 't4')], 'runner').then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).to.be.instanceOf(Error);
  });

  it('refuses a collection another store handed out', async () => {
    const other = SqliteReadModelStore.open(join(dir.path, 'other.sqlite'));
    try {
      const foreign = other.collection(taskProjection);
      const error = await store.applyBatch([foreign as never], [taskCreated(1, 't1')], 'runner').then(
        () => null,
        (e: unknown) => e,
      );
      expect((error as Error).message).to.match(/does not belong to this store/);
    } finally {
      await other.close();
    }
  });
});
