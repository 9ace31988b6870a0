import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteCheckpointStore } from '../../src/adapters/sqlite/SqliteCheckpointStore.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { anEvent, eventually } from '../support/events.js';
import { tempDir } from '../support/tempStore.js';

const appendLoop = fileURLToPath(new URL('../support/appendLoop.js', import.meta.url));

describe('SQLite event store across processes and crashes', function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  let file: string;

  beforeEach(() => {
    dir = tempDir();
    file = join(dir.path, 'events.sqlite');
  });
  afterEach(() => dir.dispose());

  it('keeps every acknowledged append after kill -9 during a burst of 50 concurrent writers', async () => {
    const child = spawn(process.execPath, [appendLoop, file, 'loop'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acknowledged: string[] = [];
    const lines = createInterface({ input: child.stdout });
    // Lines already in the pipe when the child dies were acknowledged too: read to the end.
    const drained = new Promise((resolve) => lines.once('close', resolve));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve) => {
      lines.on('line', (id) => {
        acknowledged.push(id);
        if (acknowledged.length === 2000) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    expect(await exited).to.equal('SIGKILL');
    await drained;

    const store = SqliteEventStore.open(file);
    try {
      const stored = new Set<string>();
      let after: string | null = null;
      for (;;) {
        const batch: RecordedEvent[] = await store.readAll({ after, maxCount: 5000 });
        if (batch.length === 0) break;
        batch.forEach((e) => stored.add(e.id));
        after = batch[batch.length - 1]!.position;
      }
      const lost = acknowledged.filter((id) => !stored.has(id));
      expect(lost, `${lost.length} acknowledged events lost`).to.deep.equal([]);
      expect(stored.size).to.be.at.least(acknowledged.length);
    } finally {
      await store.close();
    }
  });

  it('shows a running subscription the events another process appends to the same file', async () => {
    const store = SqliteEventStore.open(file);
    const seen: string[] = [];
    const subscription = store.subscribeToAll({
      after: null,
      handle: async (batch) => {
        seen.push(...batch.map((e) => e.id));
      },
    });
    try {
      const child = spawn(process.execPath, [appendLoop, file, 'once'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const id = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
      // Found by looking at the file's version every few milliseconds (how soon: `npm run bench:timings`);
      // waited for generously: only an event never seen fails.
      await eventually(() => seen.includes(id), 10_000, 2);
    } finally {
      await subscription.stop();
      await store.close();
    }
  });

  it('resumes a checkpointed subscription after a restart, without the events it had handled', async () => {
    const handleAll = async (checkpointed: { store: SqliteEventStore; checkpoints: SqliteCheckpointStore }, until: number) => {
      const seen: string[] = [];
      const from = await checkpointed.checkpoints.load('test');
      const subscription = checkpointed.store.subscribeToAll({
        after: from,
        handle: async (batch) => {
          seen.push(...batch.map((e) => e.type));
          await checkpointed.checkpoints.save('test', batch[batch.length - 1]!.position);
        },
      });
      await eventually(() => seen.length >= until, 5000);
      await subscription.stop();
      return seen;
    };

    let store = SqliteEventStore.open(file);
    await store.append('s', [anEvent('First'), anEvent('Second')], 'no_stream');
    expect(await handleAll({ store, checkpoints: new SqliteCheckpointStore(store.db) }, 2)).to.deep.equal(['First', 'Second']);
    await store.close();

    store = SqliteEventStore.open(file);
    await store.append('s', [anEvent('Third')], 1);
    expect(await handleAll({ store, checkpoints: new SqliteCheckpointStore(store.db) }, 1)).to.deep.equal(['Third']);
    await store.close();
  });
});
