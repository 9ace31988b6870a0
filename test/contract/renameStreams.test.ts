import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { PostgresEventStore } from '../../src/adapters/postgres/PostgresEventStore.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import type { EventStore, EventToAppend } from '../../src/application/ports/EventStore.js';
import { newId } from '../../src/shared/ids.js';
import { skipLine } from '../support/integration.js';
import { postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../support/postgresLog.js';
import { tempDir } from '../support/tempStore.js';

interface RenamingStoreUnderTest {
  readonly events: EventStore & Required<Pick<EventStore, 'renameStreams'>>;
  /** The store's files, read whole after a checkpoint (none where the engine's files are not the test's to read). */
  readonly files?: () => Buffer[];
  readonly dispose: () => Promise<void>;
}

const event = (): EventToAppend => ({ id: newId(), type: 'Noted', data: { at: 'now' }, metadata: { source: 'api', correlationId: 'c', companyId: 'co-1' } });

/** `EventStore.renameStreams`, for every adapter that offers it: streams renamed in place, once per prefix. */
const renameStreamsContract = (name: string, make: () => Promise<RenamingStoreUnderTest>): void => {
  describe(`EventStore.renameStreams: ${name}`, function () {
    this.timeout(20_000);
    let made: RenamingStoreUnderTest;
    beforeEach(async () => (made = await make()));
    afterEach(() => made.dispose());

    it('renames the streams of the prefix that the function renames, every event keeping its id, position, revision, type, data, metadata and time', async () => {
      const prefix = `ren${newId().slice(-8)}-`;
      const [a, b, kept, other] = [`${prefix}co-+4915112345678`, `${prefix}co-+4915187654321`, `${prefix}co-khashed`, `note-${newId()}`];
      for (const stream of [a, b, kept, other]) await made.events.append(stream, [event(), event()], 'no_stream');
      const before = await made.events.readAll();
      const renamed = (stream: string) => (stream.endsWith('-khashed') ? stream : stream.replace(/-\+(\d+)$/, (_, digits: string) => `-k${digits}`));

      expect(await made.events.renameStreams(prefix, renamed)).to.equal(2);

      for (const stream of [a, b]) {
        expect(await made.events.readStream(stream)).to.deep.equal([]);
        const moved = await made.events.readStream(renamed(stream));
        expect(moved.map(({ stream: _, ...rest }) => rest)).to.deep.equal(
          before.filter((e) => e.stream === stream).map(({ stream: _, ...rest }) => rest),
        );
      }
      expect(await made.events.readStream(kept)).to.have.length(2);
      expect(await made.events.readStream(other)).to.have.length(2);
      const after = await made.events.readAll();
      expect(after.map((e) => [e.id, e.position, e.revision])).to.deep.equal(before.map((e) => [e.id, e.position, e.revision]));
      // Appends go on at the renamed stream's next revision.
      expect((await made.events.append(renamed(a), [event()], 1)).nextRevision).to.equal(2);
    });

    it('renames a prefix once: a later call answers 0 at once and renames nothing, even a stream added since', async () => {
      const prefix = `once${newId().slice(-8)}-`;
      await made.events.append(`${prefix}co-+491511`, [event()], 'no_stream');
      expect(await made.events.renameStreams(prefix, (stream) => `${stream}x`)).to.equal(1);
      await made.events.append(`${prefix}co-+491512`, [event()], 'no_stream');
      expect(await made.events.renameStreams(prefix, (stream) => `${stream}y`)).to.equal(0);
      expect(await made.events.readStream(`${prefix}co-+491512`)).to.have.length(1);
      // A prefix with nothing to rename is recorded as done too.
      const empty = `none${newId().slice(-8)}-`;
      expect(await made.events.renameStreams(empty, (stream) => `${stream}z`)).to.equal(0);
    });

    it('leaves no byte of an old name in the store\'s files (SQLite: secure_delete, then the write-ahead log emptied)', async function () {
      if (!made.files) this.skip();
      const prefix = `gone${newId().slice(-8)}-`;
      const number = `+49151${String(Date.now()).slice(-7)}`;
      for (let i = 0; i < 50; i++) await made.events.append(`${prefix}co-${number}${i}`, [event()], 'no_stream');
      await made.events.renameStreams(prefix, (stream) => `${prefix}co-k${stream.length}${stream.slice(-2)}`);
      const digits = Buffer.from(number.slice(1), 'utf8');
      expect(made.files!().filter((bytes) => bytes.includes(digits))).to.have.length(0);
    });
  });
};

renameStreamsContract('SQLite', async () => {
  const dir = tempDir('chronicle-rename-streams-');
  const file = join(dir.path, 'chronicle.sqlite');
  const events = SqliteEventStore.open(file);
  return {
    events,
    files: () => {
      events.db.pragma('wal_checkpoint(TRUNCATE)');
      return [readFileSync(file)];
    },
    dispose: async () => {
      await events.close();
      dir.dispose();
    },
  };
});

if (postgresTestUrl()) {
  const database = databaseForThisFile();
  renameStreamsContract('PostgreSQL', async () => {
    const { url } = await database();
    const pool = await migratedLogPool(url);
    const events = new PostgresEventStore(pool, { ownsPool: true });
    return { events, dispose: () => events.close() };
  });
} else {
  skipLine('EventStore.renameStreams: PostgreSQL', 'POSTGRES_TEST_URL');
}
