import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteSubjectKeyStore } from '../../../src/adapters/sqlite/SqliteSubjectKeyStore.js';
import { PersonalDataEventStore } from '../../../src/application/personalData/PersonalDataEventStore.js';
import { SEAL_STORED_EVENTS, sealStoredEvents } from '../../../src/application/personalData/sealStoredEvents.js';
import { SubjectKeys, subjectOf } from '../../../src/application/personalData/SubjectKeys.js';
import { SecretsKeyring } from '../../../src/application/secrets/SecretsKeyring.js';
import { UpcastingEventStore } from '../../../src/application/versioning/UpcastingEventStore.js';
import { PERSONAL_EVENT_FIELDS, RETIRED_EVENT_FIELDS, STORED_EVENT_TYPES } from '../../../src/features/index.js';
import { newId } from '../../../src/shared/ids.js';
import { tempDir } from '../../support/tempStore.js';

const metadata = (schemaVersion?: number) => ({ source: 'api' as const, correlationId: 'r-1', companyId: 'co-1', ...(schemaVersion ? { schemaVersion } : {}) });

/** Events as a release before sealing stored them: values in the clear, some of older versions. */
const oldEvents = (contactId: string) => [
  {
    stream: `contact-${contactId}`,
    event: {
      id: newId(),
      type: 'ContactCreated',
      data: { contactId, companyId: 'co-1', name: 'Olga Oldfield', phoneNumber: '+4915100001111', email: 'olga@example.org', tags: ['old'], createdAt: '2024-05-01T10:00:00.000Z' },
      metadata: metadata(1),
    },
  },
  {
    // Version 1 of an update: no `contact`, stored unmarked (before versions were recorded).
    stream: `contact-${contactId}`,
    event: {
      id: newId(),
      type: 'ContactUpdated',
      data: { contactId, companyId: 'co-1', changes: { city: 'Oldtown' }, previous: {}, updatedAt: '2024-05-02T10:00:00.000Z' },
      metadata: metadata(),
    },
  },
  {
    stream: 'phone-co%2D1-%2B4915100001111',
    event: {
      id: newId(),
      type: 'PhoneNumberReserved',
      data: { companyId: 'co-1', contactId, phoneNumber: '+4915100001111', at: '2024-05-01T10:00:00.000Z' },
      metadata: metadata(1),
    },
  },
];

describe('sealing the events an earlier release stored in the clear, in place', () => {
  let dir: ReturnType<typeof tempDir>;
  let adapter: SqliteEventStore;
  let keys: SubjectKeys;
  let read: UpcastingEventStore;
  beforeEach(async () => {
    dir = tempDir('chronicle-seal-stored-');
    adapter = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    keys = new SubjectKeys(new SqliteSubjectKeyStore(adapter.db), new SecretsKeyring(undefined));
    read = new UpcastingEventStore(new PersonalDataEventStore(adapter, keys, PERSONAL_EVENT_FIELDS), { types: STORED_EVENT_TYPES });
  });
  afterEach(async () => {
    await adapter.close();
    dir.dispose();
  });

  const store = async (contactId: string) => {
    for (const { stream, event } of oldEvents(contactId)) await adapter.append(stream, [event], 'any');
  };
  const fileHolds = (text: string): boolean => {
    adapter.db.pragma('wal_checkpoint(TRUNCATE)');
    return readFileSync(join(dir.path, 'chronicle.sqlite')).includes(Buffer.from(text));
  };

  it('keeps each event readable as it was, its id, position, revision, type and time, and no value in the clear', async () => {
    await store('c-1');
    const before = await read.readAll();
    expect(fileHolds('Olga Oldfield')).to.equal(true);

    const done = await sealStoredEvents(adapter, keys, PERSONAL_EVENT_FIELDS, RETIRED_EVENT_FIELDS);

    expect(done).to.deep.equal({ looked: 3, changed: 3 });
    const after = await read.readAll();
    // As read (opened and upcast): the same, but for the version the reservation records now.
    const comparable = ({ version: _, metadata: { schemaVersion: __, ...metadata }, ...event }: (typeof after)[number]) => ({ ...event, metadata });
    expect(after.map(comparable)).to.deep.equal(before.map(comparable));
    const stored = JSON.stringify((await adapter.readAll()).map((event) => event.data));
    for (const value of ['Olga Oldfield', 'olga@example.org', '4915100001111', 'Oldtown']) expect(stored, value).not.to.contain(value);
    // (The number is in its reservation stream's name until that is renamed: see PersonalStreamNames.)
    for (const value of ['Olga Oldfield', 'olga@example.org', 'Oldtown']) expect(fileHolds(value), value).to.equal(false);
    // The reservation of version 1 lost its number: it is of version 2 now.
    const [, , reserved] = await adapter.readAll();
    expect(reserved!.metadata.schemaVersion).to.equal(2);
    expect(reserved!.data).not.to.have.property('phoneNumber');
  });

  it('is done once: a second run looks at nothing, and resumes where a run stopped', async () => {
    await store('c-1');
    await adapter.rewriteEventData(SEAL_STORED_EVENTS, 2, async () => new Map());
    expect(await sealStoredEvents(adapter, keys, PERSONAL_EVENT_FIELDS, RETIRED_EVENT_FIELDS)).to.deep.equal({ looked: 1, changed: 1 });
    expect(await sealStoredEvents(adapter, keys, PERSONAL_EVENT_FIELDS, RETIRED_EVENT_FIELDS)).to.deep.equal({ looked: 0, changed: 0 });
  });

  it('lets an erasure reach them: every value reads as null, listed as erased, the older versions upcast still', async () => {
    await store('c-1');
    await sealStoredEvents(adapter, keys, PERSONAL_EVENT_FIELDS, RETIRED_EVENT_FIELDS);
    await keys.erase(subjectOf('contact', 'c-1'), new Date());
    const [created, updated] = await read.readStream('contact-c-1');
    expect(created!.data).to.include({ name: null, phoneNumber: null, email: null, tags: null });
    expect(created!.erasedFields).to.include.members(['name', 'phoneNumber', 'email', 'tags']);
    expect(updated!.version).to.deep.include({ stored: 1 });
    expect(updated!.data).to.deep.include({ changes: { city: null } });
    expect(JSON.stringify(updated!.data)).not.to.contain('Olga');
  });
});
