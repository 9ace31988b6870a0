import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteSubjectKeyStore } from '../../../src/adapters/sqlite/SqliteSubjectKeyStore.js';
import { PersonalDataEventStore } from '../../../src/application/personalData/PersonalDataEventStore.js';
import { SubjectKeys } from '../../../src/application/personalData/SubjectKeys.js';
import { SecretsKeyring } from '../../../src/application/secrets/SecretsKeyring.js';
import type { RecordedEvent, SubscribeOptions, Subscription } from '../../../src/application/ports/EventStore.js';
import { FEATURES } from '../../../src/features/index.js';
import type { FieldsDeclaration } from '../../../src/shared/PersonalData.js';
import { newId } from '../../../src/shared/ids.js';
import { tempDir } from '../../support/tempStore.js';

const declarations = new Map<string, FieldsDeclaration>(FEATURES.flatMap((feature) => Object.entries(feature.personalData?.events ?? {})));
const metadata = { source: 'api' as const, correlationId: 'r-1', companyId: 'co-1' };
const contactCreated = (contactId: string, name: string) => ({
  id: newId(),
  type: 'ContactCreated',
  data: { contactId, companyId: 'co-1', name, phoneNumber: '+4915199990001', email: `${name.toLowerCase()}@example.org`, tags: ['vip'], createdAt: '2024-05-01T10:00:00.000Z' },
  metadata,
});

describe('PersonalDataEventStore: personal fields sealed in the log, opened on every read path', () => {
  let dir: ReturnType<typeof tempDir>;
  let adapter: SqliteEventStore;
  let keyStore: SqliteSubjectKeyStore;
  let store: PersonalDataEventStore;
  let keys: SubjectKeys;

  beforeEach(() => {
    dir = tempDir('chronicle-sealed-');
    adapter = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    keyStore = new SqliteSubjectKeyStore(adapter.db);
    keys = new SubjectKeys(keyStore, new SecretsKeyring(undefined));
    store = new PersonalDataEventStore(adapter, keys, declarations);
  });
  afterEach(async () => {
    await store.close();
    dir.dispose();
  });

  it('stores no personal value in the clear, and reads the event back as it was appended', async () => {
    const event = contactCreated('c-1', 'Zelda');
    await store.append('contact-c-1', [event], 'no_stream');
    const [raw] = await adapter.readStream('contact-c-1');
    const text = JSON.stringify(raw!.data);
    for (const value of ['Zelda', 'zelda@example.org', '4915199990001', 'vip']) expect(text).not.to.contain(value);
    const [read] = await store.readStream('contact-c-1');
    expect(read!.data).to.deep.equal(event.data);
    expect(read!.erasedFields).to.equal(undefined);
    const [all] = await store.readAll();
    expect(all!.data).to.deep.equal(event.data);
    // Not in the file either, once the write-ahead log is folded into it.
    adapter.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(join(dir.path, 'chronicle.sqlite')).includes(Buffer.from('Zelda'))).to.equal(false);
  });

  it('seals the events of an atomic append to several streams, and leaves events without personal fields as they are', async () => {
    const created = contactCreated('c-2', 'Yorick');
    const released = { id: newId(), type: 'PhoneNumberReleased', data: { contactId: 'c-2', at: '2024-05-01T10:00:00.000Z' }, metadata };
    await store.appendToStreams!([
      { stream: 'contact-c-2', events: [created], expected: 'no_stream' },
      { stream: 'phone-x', events: [released], expected: 'no_stream' },
    ]);
    const raw = await adapter.readAll();
    expect(JSON.stringify(raw[0]!.data)).not.to.contain('Yorick');
    expect(raw[1]!.data).to.deep.equal(released.data);
    expect((await store.readAll()).map((event) => event.data)).to.deep.equal([created.data, released.data]);
  });

  it('reads the fields of an erased subject as null, listed in erasedFields; the others\' stay readable', async () => {
    await store.append('contact-c-3', [contactCreated('c-3', 'Xavier')], 'no_stream');
    await store.append('contact-c-4', [contactCreated('c-4', 'Wanda')], 'no_stream');
    await keys.erase('contact:c-3', new Date());
    const [erased] = await store.readStream('contact-c-3');
    expect(erased!.data).to.include({ contactId: 'c-3', name: null, phoneNumber: null, email: null, tags: null });
    expect(erased!.erasedFields).to.have.members(['name', 'phoneNumber', 'email', 'tags']);
    expect(JSON.stringify(erased)).not.to.contain('Xavier');
    const [kept] = await store.readStream('contact-c-4');
    expect(kept!.data).to.include({ name: 'Wanda' });
  });

  it('hands subscribers opened events', async () => {
    const event = contactCreated('c-5', 'Valerie');
    await store.append('contact-c-5', [event], 'no_stream');
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({ after: null, handle: async (batch) => void seen.push(...batch) });
    const deadline = Date.now() + 5000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.stop();
    expect(seen.map((recorded) => recorded.data)).to.deep.equal([event.data]);
  });

  it('asks the key store nothing to append about new people (their keys go in the commit), and once per read, whatever the number of events', async () => {
    let gets = 0;
    const counted = new SubjectKeys(
      { ...keyStore, get: (subjects: readonly string[]) => ((gets += 1), keyStore.get(subjects)), putIfAbsent: (c) => keyStore.putIfAbsent(c), erase: (s, at) => keyStore.erase(s, at), erasedAt: (s) => keyStore.erasedAt(s), erased: () => keyStore.erased(), close: () => keyStore.close() },
      new SecretsKeyring(undefined),
    );
    const countedStore = new PersonalDataEventStore(adapter, counted, declarations);
    await countedStore.appendToStreams!(
      Array.from({ length: 5 }, (_, i) => ({ stream: `contact-d-${i}`, events: [contactCreated(`d-${i}`, `Name${i}`)], expected: 'no_stream' as const })),
    );
    expect(gets).to.equal(0);
    expect((await keyStore.get(Array.from({ length: 5 }, (_, i) => `contact:d-${i}`))).size).to.equal(5);
    expect(await countedStore.readAll()).to.have.length(5);
    expect(gets).to.equal(1);
  });

  it('keeps a new person\'s key in the append\'s own commit, and drops the values of a subject erased before the write', async () => {
    await store.append('contact-e-1', [contactCreated('e-1', 'Ursula')], 'no_stream');
    expect((await keyStore.get(['contact:e-1'])).size).to.equal(1);
    await keys.erase('contact:e-2', new Date());
    // A write about a subject erased already: refused by the key store in the commit, sealed again without its values.
    await store.append('contact-e-2', [contactCreated('e-2', 'Tobias')], 'no_stream');
    const [raw] = await adapter.readStream('contact-e-2');
    expect(JSON.stringify(raw)).not.to.contain('Tobias');
    const [read] = await store.readStream('contact-e-2');
    expect(read!.data).to.include({ contactId: 'e-2', name: null });
  });

  it('opens the batches of another source of the log (the EventStoreDB fan-out), passing the rest of it through', async () => {
    const event = contactCreated('f-1', 'Fenna');
    await store.append('contact-f-1', [event], 'no_stream');
    const sealed = await adapter.readAll();
    let prepared = 0;
    const source = {
      group: 'fan-out',
      prepare(): number {
        return ++prepared;
      },
      subscribeToAll: (options: SubscribeOptions): Subscription => {
        void options.handle(sealed);
        return { position: null, stop: async () => undefined };
      },
    };
    // A store of another process: nothing appended through it, so every event is opened with the keys.
    const other = new PersonalDataEventStore(adapter, new SubjectKeys(keyStore, new SecretsKeyring(undefined)), declarations);
    const opened = other.openedSource(source);
    expect(opened.group).to.equal('fan-out');
    expect(opened.prepare()).to.equal(1);
    const handed = await new Promise<readonly RecordedEvent[]>((resolve) => {
      opened.subscribeToAll({ handle: async (batch) => resolve(batch) } as SubscribeOptions);
    });
    expect(handed.map((e) => e.data)).to.deep.equal([event.data]);
  });
});
