import { join } from 'node:path';
import { expect } from 'chai';
import { PostgresEventStore } from '../../src/adapters/postgres/PostgresEventStore.js';
import { PostgresSubjectKeyStore } from '../../src/adapters/postgres/PostgresSubjectKeyStore.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteSubjectKeyStore } from '../../src/adapters/sqlite/SqliteSubjectKeyStore.js';
import { SubjectKeyTakenError, WrongExpectedRevisionError, type EventStore, type EventToAppend } from '../../src/application/ports/EventStore.js';
import type { SubjectKeyStore } from '../../src/application/ports/SubjectKeyStore.js';
import { newId } from '../../src/shared/ids.js';
import { skipLine } from '../support/integration.js';
import { postgresTestUrl } from '../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../support/postgresLog.js';
import { tempDir } from '../support/tempStore.js';
import { newKeyText, newSubject } from './subjectKeyStore.contract.js';

interface KeyedStoreUnderTest {
  readonly events: EventStore & Required<Pick<EventStore, 'appendToStreamsWithKeys'>>;
  readonly keys: SubjectKeyStore;
  readonly dispose: () => Promise<void>;
}

const event = (type = 'Noted'): EventToAppend => ({ id: newId(), type, data: { at: 'now' }, metadata: { source: 'api', correlationId: 'c', companyId: 'co-1' } });

/**
 * `EventStore.appendToStreamsWithKeys`, for every adapter that offers it: new
 * subjects' keys kept in the same commit as the events, or neither.
 */
const keyedAppendContract = (name: string, make: () => Promise<KeyedStoreUnderTest>): void => {
  describe(`EventStore.appendToStreamsWithKeys: ${name}`, function () {
    this.timeout(20_000);
    let made: KeyedStoreUnderTest;
    beforeEach(async () => (made = await make()));
    afterEach(() => made.dispose());

    const streamOf = (): string => `note-${newId()}`;

    it('keeps the new keys with the events, in one commit', async () => {
      const [a, b] = [newSubject(), newSubject('user')];
      const keys = new Map([
        [a, newKeyText()],
        [b, newKeyText()],
      ]);
      const [stream, other] = [streamOf(), streamOf()];
      const results = await made.events.appendToStreamsWithKeys(
        [
          { stream, events: [event(), event()], expected: 'no_stream' },
          { stream: other, events: [event()], expected: 'no_stream' },
        ],
        keys,
      );
      expect(results.map((result) => result.nextRevision)).to.deep.equal([1, 0]);
      expect(await made.events.readStream(stream)).to.have.length(2);
      expect([...(await made.keys.get([a, b]))].sort()).to.deep.equal([...keys].sort());
    });

    it('refuses the whole append when a subject has a key already: nothing stored, its other keys not kept', async () => {
      const [known, fresh] = [newSubject(), newSubject()];
      const knownKey = newKeyText();
      await made.keys.putIfAbsent(new Map([[known, knownKey]]));
      const stream = streamOf();
      let error: unknown;
      await made.events
        .appendToStreamsWithKeys([{ stream, events: [event()], expected: 'no_stream' }], new Map([[fresh, newKeyText()], [known, newKeyText()]]))
        .catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(SubjectKeyTakenError);
      expect(error).to.include({ subject: known, erased: false });
      expect(await made.events.readStream(stream)).to.deep.equal([]);
      expect([...(await made.keys.get([known, fresh]))]).to.deep.equal([[known, knownKey]]);
    });

    it('refuses an append naming an erased subject, and never gives it a key again', async () => {
      const erased = newSubject();
      await made.keys.erase(erased, new Date());
      const stream = streamOf();
      let error: unknown;
      await made.events.appendToStreamsWithKeys([{ stream, events: [event()], expected: 'no_stream' }], new Map([[erased, newKeyText()]])).catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(SubjectKeyTakenError);
      expect(error).to.include({ subject: erased, erased: true });
      expect(await made.events.readStream(stream)).to.deep.equal([]);
      expect((await made.keys.get([erased])).size).to.equal(0);
    });

    it('keeps no key of an append refused for its expected revision', async () => {
      const stream = streamOf();
      await made.events.append(stream, [event()], 'no_stream');
      const subject = newSubject();
      let error: unknown;
      await made.events.appendToStreamsWithKeys([{ stream, events: [event()], expected: 'no_stream' }], new Map([[subject, newKeyText()]])).catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(WrongExpectedRevisionError);
      expect((await made.keys.get([subject])).size).to.equal(0);
    });

    it('settles each of concurrent appends on its own: one refused, the others stored with their keys', async () => {
      const known = newSubject();
      await made.keys.putIfAbsent(new Map([[known, newKeyText()]]));
      const fresh = Array.from({ length: 8 }, () => newSubject());
      const streams = fresh.map(() => streamOf());
      const outcomes = await Promise.allSettled([
        ...fresh.map((subject, i) =>
          made.events.appendToStreamsWithKeys([{ stream: streams[i]!, events: [event()], expected: 'no_stream' }], new Map([[subject, newKeyText()]])),
        ),
        made.events.appendToStreamsWithKeys([{ stream: streamOf(), events: [event()], expected: 'no_stream' }], new Map([[known, newKeyText()]])),
        // The same new subject twice: one of them keeps its key, the other is refused.
        made.events.appendToStreamsWithKeys([{ stream: streamOf(), events: [event()], expected: 'no_stream' }], new Map([[fresh[0]!, newKeyText()]])),
      ]);
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(refused).to.have.length(2);
      for (const outcome of refused) expect((outcome as PromiseRejectedResult).reason).to.be.instanceOf(SubjectKeyTakenError);
      expect((await made.keys.get(fresh)).size).to.equal(8);
      for (const stream of streams.slice(1)) expect(await made.events.readStream(stream)).to.have.length(1);
    });
  });
};

keyedAppendContract('SQLite', async () => {
  const dir = tempDir('chronicle-keyed-append-');
  const events = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
  const keys = new SqliteSubjectKeyStore(events.db);
  return {
    events,
    keys,
    dispose: async () => {
      await keys.close();
      await events.close();
      dir.dispose();
    },
  };
});

if (postgresTestUrl()) {
  const database = databaseForThisFile();
  keyedAppendContract('PostgreSQL', async () => {
    const { url } = await database();
    const pool = await migratedLogPool(url);
    const events = new PostgresEventStore(pool, { ownsPool: true });
    return { events, keys: new PostgresSubjectKeyStore(pool), dispose: () => events.close() };
  });
} else {
  skipLine('EventStore.appendToStreamsWithKeys: PostgreSQL', 'POSTGRES_TEST_URL');
}
