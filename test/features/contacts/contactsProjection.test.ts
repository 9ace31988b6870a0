import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import type { CommandDeps } from '../../../src/application/commands/CommandDeps.js';
import { createContact } from '../../../src/features/contacts/application/createContact.js';
import { updateContact } from '../../../src/features/contacts/application/updateContact.js';
import { UndecodableEventError } from '../../../src/application/versioning/UndecodableEventError.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import type { DocumentCollection } from '../../../src/application/ports/ReadModelStore.js';
import type { CreateContactFields, UpdateContactFields } from '../../../src/features/contacts/domain/contactInput.js';
import type { Contact } from '../../../src/features/contacts/domain/contactView.js';
import { newId } from '../../../src/shared/ids.js';
import { contactListQuery } from '../../../src/features/contacts/readModels/contactQueries.js';
import { contactOf, contactsProjection, type ContactDoc } from '../../../src/features/contacts/readModels/contactsProjection.js';
import { tempDir } from '../../support/tempStore.js';

const metadata = { source: 'api' as const, correlationId: 'req-1', companyId: 'co-1' };
const T0 = Date.parse('2024-05-01T10:00:00.000Z');
const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

describe('contacts projection', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  let now: number;
  let deps: CommandDeps;
  let contacts: DocumentCollection<ContactDoc>;
  let applied: RecordedEvent[];

  /** Applies the events appended since the last sync, as the runner would. */
  const sync = async (): Promise<RecordedEvent[]> => {
    const events = await store.readAll({ after: applied.at(-1)?.position ?? null });
    await contacts.apply(events);
    applied.push(...events);
    return events;
  };
  const create = async (fields: CreateContactFields, companyId = 'co-1'): Promise<Contact> => {
    const result = await createContact(deps, { companyId, fields, metadata: { ...metadata, companyId } });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
    return result.right.contact;
  };
  const update = async (contactId: string, changes: UpdateContactFields): Promise<Contact> => {
    const result = await updateContact(deps, { companyId: 'co-1', contactId, changes, metadata });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
    return result.right.contact;
  };
  const list = async (params: Partial<Parameters<typeof contactListQuery>[0]> = {}) => {
    const page = await contacts.list(contactListQuery({ companyId: 'co-1', page: 1, limit: 50, ...params }));
    return { names: page.items.map((doc) => contactOf(doc).name), total: page.total };
  };

  beforeEach(() => {
    dir = tempDir('chronicle-contacts-projection-');
    store = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
    now = T0;
    deps = { eventStore: store, newId, clock: { now: () => new Date(now) } };
    contacts = new MemoryReadModelStore().collection(contactsProjection);
    applied = [];
  });
  afterEach(async () => {
    await store.close();
    dir.dispose();
  });

  describe('given a created contact', () => {
    it('holds the same view the command answered, with the company and the position of its event', async () => {
      const contact = await create({ name: 'Ada', phoneNumber: '+49151000', email: 'ada@example.org', position: 'CTO', tags: ['vip'] });
      const event = (await sync()).find((e) => e.type === 'ContactCreated');
      const doc = await contacts.get('co-1', contact.id);
      expect(doc).to.deep.equal({ id: contact.id, companyId: 'co-1', position: event!.position, revision: event!.revision, contact });
      expect(contactOf(doc!).position).to.equal('CTO');
    });

    it('is not found for another company', async () => {
      const contact = await create({ name: 'Ada', phoneNumber: '+49151000' });
      await sync();
      expect(await contacts.get('co-2', contact.id)).to.equal(null);
      expect((await contacts.list(contactListQuery({ companyId: 'co-2', page: 1, limit: 50 }))).total).to.equal(0);
    });
  });

  describe('given a contact updated twice', () => {
    it('holds the same view the last command answered, and the position of the last event', async () => {
      const { id } = await create({ name: 'Ada', phoneNumber: '+49151000', city: 'London' });
      now += 60_000;
      await update(id, { city: null, lastName: 'King' });
      now += 60_000;
      const last = await update(id, { phoneNumber: '+3312345', tags: ['x', 'y'] });
      const events = await sync();
      const lastContactEvent = events.filter((e) => e.type === 'ContactUpdated').at(-1)!;
      const doc = await contacts.get('co-1', id);
      expect(doc).to.deep.equal({ id, companyId: 'co-1', position: lastContactEvent.position, revision: lastContactEvent.revision, contact: last });
      expect(last).to.include({ city: null, lastName: 'King', phoneNumber: '+3312345', createdAt: iso(0), updatedAt: iso(2) });
    });

    it('changes nothing when the same events are applied again', async () => {
      const { id } = await create({ name: 'Ada', phoneNumber: '+49151000' });
      await update(id, { name: 'Ada King' });
      await sync();
      const before = await contacts.get('co-1', id);
      await contacts.apply(applied);
      expect(await contacts.get('co-1', id)).to.equal(before);
    });
  });

  describe('given an update of a contact the read model has never seen', () => {
    it('creates no document', async () => {
      const { id } = await create({ name: 'Ada', phoneNumber: '+49151000' });
      await update(id, { name: 'Ada King' });
      const events = await store.readAll();
      await contacts.apply(events.filter((e) => e.type === 'ContactUpdated'));
      expect(await contacts.get('co-1', id)).to.equal(null);
    });
  });

  describe('given a contact whose person was erased (its events read with their personal fields null)', () => {
    const erasedContact = {
      id: 'c-9',
      name: null,
      firstName: null,
      lastName: null,
      phoneNumber: null,
      email: null,
      position: null,
      currentCompany: null,
      industrySector: null,
      city: null,
      country: null,
      tags: null,
      createdAt: iso(0),
      updatedAt: iso(1),
    };

    it('holds no document for it (the API shows no such contact), and takes away one an event reads so', async () => {
      await store.append(
        'contact-c-9',
        [{ id: newId(), type: 'ContactCreated', data: { contactId: 'c-9', companyId: 'co-1', name: null, phoneNumber: null, tags: null, email: null, createdAt: iso(0) }, metadata }],
        'no_stream',
      );
      await sync();
      expect(await contacts.get('co-1', 'c-9')).to.equal(null);

      const { id } = await create({ name: 'Ada', phoneNumber: '+49151000' });
      await sync();
      const changes = { name: null, phoneNumber: null, tags: null };
      await store.append(
        `contact-${id}`,
        [{ id: newId(), type: 'ContactUpdated', data: { contactId: id, companyId: 'co-1', changes, previous: changes, updatedAt: iso(1), contact: { ...erasedContact, id } }, metadata }],
        0,
      );
      await sync();
      expect(await contacts.get('co-1', id)).to.equal(null);
      expect(await list()).to.deep.equal({ names: [], total: 0 });
    });
  });

  describe('given a stored contact event its codec refuses', () => {
    it('stops with an error naming the event (the log and the code disagree)', async () => {
      await store.append('contact-x', [{ id: newId(), type: 'ContactCreated', data: { contactId: 'x' }, metadata }], 'no_stream');
      let error: unknown;
      await contacts.apply(await store.readAll()).catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(UndecodableEventError);
    });
  });

  describe('given several contacts', () => {
    beforeEach(async () => {
      await create({ name: 'Ada Lovelace', phoneNumber: '+44 20 7946 0000', email: 'ada@Example.org' });
      now += 60_000;
      await create({ name: 'Weird .*( name', phoneNumber: '+49 151 000' });
      now += 60_000;
      const grace = await create({ name: 'Grace Hopper', phoneNumber: '+1 555 0100', email: 'grace@navy.mil' });
      now += 60_000;
      await create({ name: 'Other company', phoneNumber: '+44 20 7946 0000' }, 'co-2');
      now += 60_000;
      await update(grace.id, { city: 'Arlington' }); // updatedAt = minute 4
      await sync();
    });

    it('lists them in creation order with the total', async () =>
      expect(await list()).to.deep.equal({ names: ['Ada Lovelace', 'Weird .*( name', 'Grace Hopper'], total: 3 }));

    it('pages', async () => expect(await list({ page: 2, limit: 2 })).to.deep.equal({ names: ['Grace Hopper'], total: 3 }));

    it('searches names case-insensitively', async () =>
      expect(await list({ search: 'LOVE' })).to.deep.equal({ names: ['Ada Lovelace'], total: 1 }));

    it('searches e-mail addresses case-insensitively', async () =>
      expect(await list({ search: 'example.ORG' })).to.deep.equal({ names: ['Ada Lovelace'], total: 1 }));

    it('searches phone numbers (stored normalised)', async () =>
      expect(await list({ search: '+49151' })).to.deep.equal({ names: ['Weird .*( name'], total: 1 }));

    it('searches regex characters literally', async () => {
      expect(await list({ search: '.*(' })).to.deep.equal({ names: ['Weird .*( name'], total: 1 });
      expect(await list({ search: '.*' })).to.deep.equal({ names: ['Weird .*( name'], total: 1 });
    });

    it('ignores a blank search', async () => expect((await list({ search: '  ' })).total).to.equal(3));

    it('lists contacts created strictly after createdSince', async () => {
      expect(await list({ createdSince: iso(1) })).to.deep.equal({ names: ['Grace Hopper'], total: 1 });
      expect(await list({ createdSince: iso(0) })).to.deep.equal({ names: ['Weird .*( name', 'Grace Hopper'], total: 2 });
    });

    it('reads createdSince in any ISO 8601 form (offset, no milliseconds)', async () =>
      expect(await list({ createdSince: '2024-05-01T12:01:00+02:00' })).to.deep.equal({ names: ['Grace Hopper'], total: 1 }));

    it('lists contacts updated strictly after updatedSince', async () => {
      expect(await list({ updatedSince: iso(2) })).to.deep.equal({ names: ['Grace Hopper'], total: 1 });
      expect(await list({ updatedSince: iso(4) })).to.deep.equal({ names: [], total: 0 });
    });

    it('combines filters', async () => {
      expect(await list({ search: 'a', createdSince: iso(0) })).to.deep.equal({ names: ['Weird .*( name', 'Grace Hopper'], total: 2 });
      expect(await list({ search: 'ada', createdSince: iso(0) })).to.deep.equal({ names: [], total: 0 });
    });
  });
});

describe('contactListQuery', () => {
  it('builds typed filters in creation order', () => {
    expect(
      contactListQuery({
        companyId: 'co-1',
        search: ' ada ',
        createdSince: '2024-05-01',
        updatedSince: '2024-05-01T12:00:00+02:00',
        page: 2,
        limit: 10,
      }),
    ).to.deep.equal({
      companyId: 'co-1',
      filters: [
        { op: 'contains', fields: ['contact.name', 'contact.email', 'contact.phoneNumber'], text: 'ada' },
        { op: 'gt', field: 'contact.createdAt', value: '2024-05-01T00:00:00.000Z' },
        { op: 'gt', field: 'contact.updatedAt', value: '2024-05-01T10:00:00.000Z' },
      ],
      page: 2,
      limit: 10,
      order: 'asc',
    });
  });

  it('has no filters without parameters', () =>
    expect(contactListQuery({ companyId: 'co-1', page: 1, limit: 50 }).filters).to.deep.equal([]));

  it('refuses an instant that is not a date', () =>
    expect(() => contactListQuery({ companyId: 'co-1', createdSince: 'yesterday', page: 1, limit: 50 })).to.throw(RangeError));
});
