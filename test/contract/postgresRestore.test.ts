import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import { PostgresEventStore } from '../../src/adapters/postgres/PostgresEventStore.js';
import { ProjectionRunner } from '../../src/application/subscriptions/ProjectionRunner.js';
import { ReadModelsAheadOfLogError, ReadModelsOfAnotherLogError } from '../../src/application/subscriptions/ReadModelsAheadOfLogError.js';
import type { DocumentCollection, ReadModelDocument } from '../../src/application/ports/ReadModelStore.js';
import { replayReadModels } from '../../src/application/replay/replayReadModels.js';
import { captureLogger } from '../support/captureLogger.js';
import { anEvent } from '../support/events.js';
import { skipLine } from '../support/integration.js';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../support/postgres.js';
import { migratedLogPool } from '../support/postgresLog.js';
import { taskProjection, type TaskCreatedData, type TaskDoc } from '../support/taskProjection.js';
import { tempDir } from '../support/tempStore.js';

/** The newest PostgreSQL client programs Debian's packages installed, or null. */
const clientPrograms = (): string | null => {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'pg_dump')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions[versions.length - 1];
  return newest === undefined ? null : join(root, newest, 'bin');
};

const COMPANY = 'co-restore';
const taskCreated = (id: string) =>
  anEvent('TaskCreated', { id, title: id, status: 'open', points: 1, tags: [], owner: null, at: '2026-01-01T00:00:00.000Z' } satisfies TaskCreatedData, COMPANY);

const bin = clientPrograms();
if (!postgresTestUrl() || bin === null) {
  skipLine('a PostgreSQL log restored from an older backup (pg_dump, pg_restore)', postgresTestUrl() ? 'pg_dump (postgresql-client)' : 'POSTGRES_TEST_URL');
} else {
  describe('a PostgreSQL log restored from an older backup (pg_dump -Fc, pg_restore), beside read models that applied more of it', function () {
    this.timeout(30_000);
    const databases: FreshDatabase[] = [];
    const stores: PostgresEventStore[] = [];
    const dir = tempDir('chronicle-pg-restore-');
    const logger = captureLogger();
    const open = async (database: FreshDatabase) => {
      const store = new PostgresEventStore(await migratedLogPool(database.url), { ownsPool: true, pollIntervalMs: 20 });
      stores.push(store);
      return store;
    };
    after(async () => {
      await Promise.all(stores.map((store) => store.close()));
      await Promise.all(databases.map((database) => database.drop()));
      dir.dispose();
    });

    it('is refused by the projector (ahead of the log, then another event at its checkpoint) until a replay rebuilds them; nothing is skipped after', async () => {
      const live = await freshPostgresDatabase();
      databases.push(live);
      const store = await open(live);
      await store.append('task-t1', [taskCreated('t1')], 'no_stream');
      const backup = join(dir.path, 'chronicle.dump');
      execFileSync(join(bin, 'pg_dump'), ['-Fc', '-f', backup, live.url]);
      await store.append('task-t2', [taskCreated('t2')], 'no_stream');
      const { position: third } = await store.append('task-t3', [taskCreated('t3')], 'no_stream');

      // Read models kept elsewhere (a file of their own) apply the whole log: their checkpoint is at the third event.
      const readModels = SqliteReadModelStore.open(join(dir.path, 'read-models.sqlite'));
      const tasks = readModels.collection(taskProjection);
      const collections = [tasks] as unknown as DocumentCollection<ReadModelDocument>[];
      const runner = (eventStore: PostgresEventStore) => new ProjectionRunner({ eventStore, readModels, collections, logger });
      try {
        const first = runner(store);
        await first.start();
        expect(first.position).to.equal(third);
        await first.stop();

        // The backup, restored into a database of its own.
        const restored = await freshPostgresDatabase();
        databases.push(restored);
        execFileSync(join(bin, 'pg_restore'), ['--no-owner', '-d', restored.url, backup]);
        const older = await open(restored);
        expect(await older.headPosition()).to.equal('1');
        const ahead = await runner(older).start().catch((error: unknown) => error);
        expect(ahead).to.be.instanceOf(ReadModelsAheadOfLogError);
        expect(ahead).to.include({ position: third, head: '1' });

        // Writes to the restored log take the positions the read models count as applied.
        const { position: reused } = await older.append('task-t4', [taskCreated('t4')], 'no_stream');
        expect(reused).to.equal('2');
        await older.append('task-t5', [taskCreated('t5')], 'no_stream');
        const another = await runner(older).start().catch((error: unknown) => error);
        expect(another).to.be.instanceOf(ReadModelsOfAnotherLogError);
        expect(another).to.include({ position: third, actualEventId: (await older.readAll({ after: '2' }))[0]!.id });
        expect(await tasks.get(COMPANY, 't4'), 'nothing applied').to.equal(null);

        // The operator rebuilds them from the restored log: every one of its events is there, and the next one too.
        await replayReadModels({ eventStore: older, readModels, projections: [taskProjection as never] });
        const rebuilt = runner(older);
        await rebuilt.start();
        const { position: sixth } = await older.append('task-t6', [taskCreated('t6')], 'no_stream');
        expect(await rebuilt.waitFor(sixth, 5_000)).to.equal(true);
        await rebuilt.stop();
        const ids = await Promise.all(['t1', 't2', 't3', 't4', 't5', 't6'].map(async (id) => (await tasks.get(COMPANY, id)) !== null));
        expect(ids).to.deep.equal([true, false, false, true, true, true]);
        expect((await tasks.get(COMPANY, 't1')) as TaskDoc).to.include({ title: 't1' });
      } finally {
        await readModels.close();
      }
    });
  });
}
