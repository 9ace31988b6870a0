import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteSubjectKeyStore } from '../../../src/adapters/sqlite/SqliteSubjectKeyStore.js';
import { PersonalDataEventStore } from '../../../src/application/personalData/PersonalDataEventStore.js';
import { PersonalStreamNames } from '../../../src/application/personalData/PersonalStreamNames.js';
import { SubjectKeys } from '../../../src/application/personalData/SubjectKeys.js';
import { SecretsKeyring } from '../../../src/application/secrets/SecretsKeyring.js';
import { WrongExpectedRevisionError, type EventToAppend } from '../../../src/application/ports/EventStore.js';
import { phoneReservationStream } from '../../../src/features/contacts/domain/phoneReservationEvents.js';
import { PERSONAL_STREAM_PREFIXES } from '../../../src/features/index.js';
import { newId } from '../../../src/shared/ids.js';
import { tempDir } from '../../support/tempStore.js';

const event = (): EventToAppend => ({ id: newId(), type: 'PhoneNumberReleased', data: { contactId: 'c-1', at: '2024-05-01T10:00:00.000Z' }, metadata: { source: 'api', correlationId: 'r' } });

describe('stream names with a person\'s value in them (a phone number\'s reservation stream)', () => {
  const key = randomBytes(32);
  const names = new PersonalStreamNames(PERSONAL_STREAM_PREFIXES, key);
  const stream = phoneReservationStream('0190a4b2-7c1e-7000-8000-000000000001', '+4915112345678');

  it('are declared by contacts, and stored under a keyed hash of the name: the same for the same name, never the number', () => {
    expect(PERSONAL_STREAM_PREFIXES).to.deep.equal(['phone-']);
    const stored = names.stored(stream);
    expect(stored).to.match(/^phone-0190a4b2%2D7c1e%2D7000%2D8000%2D000000000001-k[0-9a-f]{32}$/);
    expect(stored).not.to.contain('4915112345678');
    expect(names.stored(stream)).to.equal(stored);
    expect(new PersonalStreamNames(PERSONAL_STREAM_PREFIXES, randomBytes(32)).stored(stream)).not.to.equal(stored);
    expect(names.stored(phoneReservationStream('0190a4b2-7c1e-7000-8000-000000000001', '+4915112345679'))).not.to.equal(stored);
    // A stored name, and any other stream, stay as they are.
    expect(names.stored(stored)).to.equal(stored);
    expect(names.stored('contact-0190a4b2')).to.equal('contact-0190a4b2');
    expect(names.holdsValue(stream)).to.equal(true);
    expect(names.holdsValue(stored)).to.equal(false);
  });

  describe('through the personal-data decorator', () => {
    let dir: ReturnType<typeof tempDir>;
    let adapter: SqliteEventStore;
    let store: PersonalDataEventStore;
    beforeEach(() => {
      dir = tempDir('chronicle-stream-names-');
      adapter = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
      store = new PersonalDataEventStore(adapter, new SubjectKeys(new SqliteSubjectKeyStore(adapter.db), new SecretsKeyring(undefined)), new Map(), names);
    });
    afterEach(async () => {
      await store.close();
      dir.dispose();
    });

    it('appends and reads by the name the domain makes, and stores only the hashed one', async () => {
      await store.append(stream, [event()], 'no_stream');
      await store.appendToStreams!([{ stream, events: [event()], expected: 0 }]);
      expect((await store.readStream(stream)).map((e) => e.revision)).to.deep.equal([0, 1]);
      expect(await adapter.readStream(stream)).to.deep.equal([]);
      expect(await adapter.readStream(names.stored(stream))).to.have.length(2);
      adapter.db.pragma('wal_checkpoint(TRUNCATE)');
      expect(readFileSync(join(dir.path, 'chronicle.sqlite')).includes(Buffer.from('4915112345678'))).to.equal(false);
    });

    it('refuses a wrong revision naming the stream as its caller named it, and showing only the stored name', async () => {
      await store.append(stream, [event()], 'no_stream');
      const refused = await store.appendToStreams!([{ stream, events: [event()], expected: 'no_stream' }]).catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(WrongExpectedRevisionError);
      expect((refused as WrongExpectedRevisionError).stream).to.equal(stream);
      expect((refused as WrongExpectedRevisionError).storedAs).to.equal(names.stored(stream));
      expect((refused as Error).message).not.to.contain('4915112345678');
    });
  });
});
