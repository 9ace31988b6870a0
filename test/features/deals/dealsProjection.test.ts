import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import type { CommandDeps } from '../../../src/application/commands/CommandDeps.js';
import { createContact } from '../../../src/features/contacts/application/createContact.js';
import { updateContact } from '../../../src/features/contacts/application/updateContact.js';
import { deleteContact, restoreContact } from '../../../src/features/contacts/application/deleteAndRestoreContact.js';
import { changeDealStatus } from '../../../src/features/deals/application/changeDealStatus.js';
import { createDeal } from '../../../src/features/deals/application/createDeal.js';
import { deleteDeal, restoreDeal } from '../../../src/features/deals/application/deleteAndRestoreDeal.js';
import type { Deal } from '../../../src/features/deals/domain/dealView.js';
import { UndecodableEventError } from '../../../src/application/versioning/UndecodableEventError.js';
import type { EventStore, RecordedEvent } from '../../../src/application/ports/EventStore.js';
import type { DocumentCollection } from '../../../src/application/ports/ReadModelStore.js';
import type { UpdateContactFields } from '../../../src/features/contacts/domain/contactInput.js';
import type { CreateDealFields, DealStatusChangeFields } from '../../../src/features/deals/domain/dealInput.js';
import { newId } from '../../../src/shared/ids.js';
import { dealListQuery } from '../../../src/features/deals/readModels/dealQueries.js';
import { dealOf, dealsProjection, type DealDoc } from '../../../src/features/deals/readModels/dealsProjection.js';
import { tempDir } from '../../support/tempStore.js';

const metadata = { source: 'api' as const, correlationId: 'req-1', companyId: 'co-1' };
const T0 = Date.parse('2024-05-01T10:00:00.000Z');
const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();
const DAY_MS = 24 * 60 * 60 * 1000;
const goneContact = (id: string) => ({ id, name: null, email: null, phoneNumber: null, currentCompany: null });

/** `store`, running `before` just before the first append to a deal's stream (after the deal's write read the contact). */
const racing = (store: EventStore, before: () => Promise<void>): EventStore => {
  let raced = false;
  return {
    kind: store.kind,
    append: async (stream, events, expected) => {
      if (!raced && stream.startsWith('deal-')) {
        raced = true;
        await before();
      }
      return store.append(stream, events, expected);
    },
    readStream: (stream, options) => store.readStream(stream, options),
    readAll: (options) => store.readAll(options),
    headPosition: () => store.headPosition(),
    subscribeToAll: (options) => store.subscribeToAll(options),
    close: () => store.close(),
  };
};

describe('deals projection', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  let now: number;
  let deps: CommandDeps;
  let deals: DocumentCollection<DealDoc>;
  let applied: RecordedEvent[];

  /** Applies the events appended since the last sync, as the runner would. */
  const sync = async (): Promise<RecordedEvent[]> => {
    const events = await store.readAll({ after: applied.at(-1)?.position ?? null });
    await deals.apply(events);
    applied.push(...events);
    return events;
  };
  const create = async (fields: CreateDealFields, companyId = 'co-1'): Promise<Deal> => {
    const result = await createDeal(deps, { companyId, fields, metadata: { ...metadata, companyId } });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
    return result.right.deal;
  };
  const changeStatus = async (dealId: string, change: DealStatusChangeFields, companyId = 'co-1'): Promise<Deal> => {
    const result = await changeDealStatus(deps, { companyId, dealId, change, metadata: { ...metadata, companyId } });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
    return result.right.deal;
  };
  const contactIn = async (companyId: string, name: string, phoneNumber: string) => {
    const fields = { name, phoneNumber, email: 'first@example.org' };
    const result = await createContact(deps, { companyId, fields, metadata: { ...metadata, companyId } });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
    return result.right.contact;
  };
  const updateContactIn = async (companyId: string, contactId: string, changes: UpdateContactFields) => {
    const result = await updateContact(deps, { companyId, contactId, changes, metadata: { ...metadata, companyId } });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
  };
  const deleteContactIn = async (companyId: string, contactId: string) => {
    const result = await deleteContact(deps, { companyId, contactId, retentionMs: DAY_MS, metadata: { ...metadata, companyId } });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
  };
  const restoreContactIn = async (companyId: string, contactId: string) => {
    const result = await restoreContact(deps, { companyId, contactId, metadata: { ...metadata, companyId } });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
  };
  const removeDeal = async (dealId: string, companyId = 'co-1') => {
    const result = await deleteDeal(deps, { companyId, dealId, retentionMs: DAY_MS, metadata: { ...metadata, companyId } });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
    return result.right;
  };
  const restoreDealIn = async (dealId: string, companyId = 'co-1', on: CommandDeps = deps): Promise<Deal> => {
    const result = await restoreDeal(on, { companyId, dealId, metadata: { ...metadata, companyId } });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
    return result.right.deal;
  };
  const dealIn = async (companyId: string, id: string): Promise<Deal> => {
    const doc = await deals.get(companyId, id);
    if (!doc) return expect.fail(`no deal ${id} in ${companyId}`);
    return dealOf(doc);
  };
  const list = async (params: Partial<Parameters<typeof dealListQuery>[0]> = {}) => {
    const page = await deals.list(dealListQuery({ companyId: 'co-1', page: 1, limit: 50, ...params }));
    return { titles: page.items.map((doc) => dealOf(doc).title), total: page.total };
  };

  beforeEach(() => {
    dir = tempDir('chronicle-deals-projection-');
    store = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
    now = T0;
    deps = { eventStore: store, newId, clock: { now: () => new Date(now) } };
    deals = new MemoryReadModelStore().collection(dealsProjection);
    applied = [];
  });
  afterEach(async () => {
    await store.close();
    dir.dispose();
  });

  describe('given a contact renamed while a deal embedding it is being created', () => {
    /** The event store, with the contact renamed just before the deal's first append (after the deal read the contact). */
    const racingStore = (contactId: string): EventStore => {
      let raced = false;
      return {
        kind: store.kind,
        append: async (stream, events, expected) => {
          if (!raced && stream.startsWith('deal-')) {
            raced = true;
            await updateContactIn('co-1', contactId, { name: 'Ada King' });
          }
          return store.append(stream, events, expected);
        },
        readStream: (stream, options) => store.readStream(stream, options),
        readAll: (options) => store.readAll(options),
        headPosition: () => store.headPosition(),
        subscribeToAll: (options) => store.subscribeToAll(options),
        close: () => store.close(),
      };
    };

    it('records the newer summary on the deal, so the read model shows the contact as it is', async () => {
      const contact = await contactIn('co-1', 'Ada', '+49151000');
      now += 60_000;
      const result = await createDeal(
        { ...deps, eventStore: racingStore(contact.id) },
        { companyId: 'co-1', fields: { title: 'T', value: 1, contactId: contact.id }, metadata },
      );
      if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
      expect(result.right.deal.contact).to.include({ id: contact.id, name: 'Ada King' });
      const stream = await store.readStream(`deal-${result.right.deal.id}`);
      expect(stream.map((event) => event.type)).to.deep.equal(['DealCreated', 'DealContactRefreshed']);
      expect(stream[0]!.data).to.have.nested.property('contact.name', 'Ada');
      // The answer's position is the refresh's: a read-your-writes read waits for it.
      expect(result.right.position).to.equal(stream[1]!.position);

      await sync();
      const deal = await dealIn('co-1', result.right.deal.id);
      expect(deal.contact).to.include({ name: 'Ada King' });
      expect(deal.updatedAt).to.equal(deal.createdAt);
      expect(deal).to.deep.equal(result.right.deal);
    });

    it('appends nothing more when the contact did not change meanwhile', async () => {
      const contact = await contactIn('co-1', 'Ada', '+49151000');
      const deal = await create({ title: 'T', value: 1, contactId: contact.id });
      expect((await store.readStream(`deal-${deal.id}`)).map((event) => event.type)).to.deep.equal(['DealCreated']);
    });
  });

  describe('given a created deal', () => {
    it('holds the same view the command answered, with the company and the position of its event', async () => {
      const deal = await create({ title: 'Engines', value: 1000, currency: 'USD', expectedCloseDate: '2027-03-31T00:00:00.000Z' });
      const event = (await sync()).find((e) => e.type === 'DealCreated');
      expect(await deals.get('co-1', deal.id)).to.deep.equal({ id: deal.id, companyId: 'co-1', position: event!.position, revision: event!.revision, deal });
    });

    it('is not found for another company', async () => {
      const deal = await create({ title: 'Engines', value: 1000 });
      await sync();
      expect(await deals.get('co-2', deal.id)).to.equal(null);
      expect((await deals.list(dealListQuery({ companyId: 'co-2', page: 1, limit: 50 }))).total).to.equal(0);
    });
  });

  describe('given a deal whose status changed twice', () => {
    it('holds the same view the last command answered, and the position of the last event', async () => {
      const { id } = await create({ title: 'Engines', value: 1000, stage: 'Lead' });
      now += 60_000;
      await changeStatus(id, { status: 'won', stage: 'Closed' });
      now += 60_000;
      const last = await changeStatus(id, { status: 'lost', actualCloseDate: '2024-04-30T00:00:00.000Z' });
      const events = await sync();
      const doc = await deals.get('co-1', id);
      expect(doc).to.deep.equal({ id, companyId: 'co-1', position: events.at(-1)!.position, revision: events.at(-1)!.revision, deal: last });
      expect(last).to.include({ status: 'lost', stage: 'Closed', actualCloseDate: '2024-04-30T00:00:00.000Z', updatedAt: iso(2) });
    });

    it('changes nothing when the same events are applied again', async () => {
      const { id } = await create({ title: 'Engines', value: 1000 });
      await changeStatus(id, { status: 'won' });
      await sync();
      const before = await deals.get('co-1', id);
      await deals.apply(applied);
      expect(await deals.get('co-1', id)).to.equal(before);
    });
  });

  describe('given a status change of a deal the read model has never seen', () => {
    it('creates no document', async () => {
      const { id } = await create({ title: 'Engines', value: 1000 });
      await changeStatus(id, { status: 'won' });
      await deals.apply((await store.readAll()).filter((e) => e.type === 'DealStatusChanged'));
      expect(await deals.get('co-1', id)).to.equal(null);
    });
  });

  describe('given deals embedding a contact, and a deal of another company embedding one with the same id', () => {
    let contactId: string;
    let first: Deal;
    let second: Deal;
    let unrelated: Deal;
    const foreignId = 'foreign-deal';
    beforeEach(async () => {
      const contact = await contactIn('co-1', 'Ada', '+49151000');
      contactId = contact.id;
      first = await create({ title: 'First', value: 1, contactId });
      second = await create({ title: 'Second', value: 2, contactId });
      unrelated = await create({ title: 'No contact', value: 3 });
      // Ids are unique, so only a log written so can hold this; a where-target is per company all the same.
      const data = {
        dealId: foreignId,
        companyId: 'co-2',
        title: 'Foreign',
        description: null,
        value: 4,
        currency: 'EUR',
        stage: null,
        priority: 'low',
        probability: null,
        expectedCloseDate: null,
        source: null,
        contact: { id: contactId, name: 'Ada', email: null, phoneNumber: '+1000', currentCompany: null },
        assignedTo: null,
        createdAt: iso(0),
      };
      const event = { id: newId(), type: 'DealCreated', data, metadata: { ...metadata, companyId: 'co-2' } };
      await store.append(`deal-${foreignId}`, [event], 'no_stream');
      await sync();
    });

    it('shows a renamed contact in every deal that embeds it, keeping each deal’s updatedAt', async () => {
      now += 60_000;
      await updateContactIn('co-1', contactId, { name: 'Ada King', email: null, currentCompany: 'Engines Ltd', phoneNumber: '+3312345' });
      const [event] = (await sync()).filter((e) => e.type === 'ContactUpdated');
      for (const deal of [first, second]) {
        const doc = await deals.get('co-1', deal.id);
        expect(doc!.deal.contact).to.deep.equal({
          id: contactId,
          name: 'Ada King',
          email: null,
          phoneNumber: '+3312345',
          currentCompany: 'Engines Ltd',
        });
        expect(doc!.deal.updatedAt).to.equal(iso(0));
        expect(doc!.position).to.equal(event!.position);
      }
      expect((await dealIn('co-1', unrelated.id)).contact).to.equal(null);
      expect((await dealIn('co-2', foreignId)).contact).to.include({ name: 'Ada', phoneNumber: '+1000' });
    });

    it('answers a later status change with the same view the read model holds', async () => {
      await updateContactIn('co-1', contactId, { name: 'Ada King' });
      const answered = await changeStatus(first.id, { status: 'won' });
      await sync();
      expect(await dealIn('co-1', first.id)).to.deep.equal(answered);
    });

    it('shows a deleted contact as its id and nulls in every deal of its company that embeds it, and the contact again once restored', async () => {
      now += 60_000;
      await deleteContactIn('co-1', contactId);
      await sync();
      for (const deal of [first, second]) expect(await dealIn('co-1', deal.id)).to.deep.equal({ ...deal, contact: goneContact(contactId) });
      expect((await dealIn('co-1', unrelated.id)).contact).to.equal(null);
      expect((await dealIn('co-2', foreignId)).contact).to.include({ name: 'Ada', phoneNumber: '+1000' });
      await restoreContactIn('co-1', contactId);
      await sync();
      for (const deal of [first, second]) expect(await dealIn('co-1', deal.id)).to.deep.equal(deal);
      const rebuilt = new MemoryReadModelStore().collection(dealsProjection);
      await rebuilt.apply(await store.readAll());
      for (const deal of [first, second, unrelated]) {
        expect(await rebuilt.get('co-1', deal.id)).to.deep.equal(await deals.get('co-1', deal.id));
      }
    });

    it('leaves the deals as they are for a contact change outside the summary', async () => {
      const before = await deals.get('co-1', first.id);
      await updateContactIn('co-1', contactId, { city: 'London', tags: ['vip'] });
      await sync();
      expect(await deals.get('co-1', first.id)).to.equal(before);
    });

    it('changes nothing when the contact change is applied again', async () => {
      await updateContactIn('co-1', contactId, { name: 'Ada King' });
      await sync();
      const before = await deals.get('co-1', first.id);
      await deals.apply(applied);
      expect(await deals.get('co-1', first.id)).to.equal(before);
    });

    it('ends as it would after a rebuild from the log', async () => {
      await updateContactIn('co-1', contactId, { name: 'Ada King' });
      await changeStatus(second.id, { status: 'lost' });
      await updateContactIn('co-1', contactId, { email: 'ada@king.org' });
      await sync();
      const rebuilt = new MemoryReadModelStore().collection(dealsProjection);
      await rebuilt.apply(await store.readAll());
      for (const deal of [first, second, unrelated]) {
        expect(await rebuilt.get('co-1', deal.id)).to.deep.equal(await deals.get('co-1', deal.id));
      }
      expect((await dealIn('co-1', second.id)).contact).to.include({ name: 'Ada King', email: 'ada@king.org' });
    });
  });

  describe('given a deleted deal', () => {
    it('drops its document: it leaves every list, filter and total', async () => {
      const kept = await create({ title: 'Kept', value: 1, stage: 'Lead' });
      const gone = await create({ title: 'Gone', value: 2, stage: 'Lead' });
      await changeStatus(gone.id, { status: 'won' });
      await removeDeal(gone.id);
      await sync();
      expect(await deals.get('co-1', gone.id)).to.equal(null);
      expect(await list()).to.deep.equal({ titles: ['Kept'], total: 1 });
      expect(await list({ status: 'won' })).to.deep.equal({ titles: [], total: 0 });
      expect(await list({ stage: 'Lead' })).to.deep.equal({ titles: ['Kept'], total: 1 });
      expect(await dealIn('co-1', kept.id)).to.deep.equal(kept);
    });

    it('has it back once restored, as the restore answered it, listed after the deals created before its restore', async () => {
      const first = await create({ title: 'First', value: 1 });
      now += 60_000;
      const lost = await changeStatus(first.id, { status: 'lost' });
      await removeDeal(first.id);
      await create({ title: 'Second', value: 2 });
      now += 60_000;
      const restored = await restoreDealIn(first.id);
      const events = await sync();
      expect(restored).to.deep.equal(lost);
      const doc = await deals.get('co-1', first.id);
      expect(doc).to.deep.equal({ id: first.id, companyId: 'co-1', position: events.at(-1)!.position, revision: events.at(-1)!.revision, deal: lost });
      expect(await list()).to.deep.equal({ titles: ['Second', 'First'], total: 2 });
      expect(await list({ status: 'lost' })).to.deep.equal({ titles: ['First'], total: 1 });
    });

    it('ends as it would after a rebuild from the log', async () => {
      const { id } = await create({ title: 'Engines', value: 1000 });
      await removeDeal(id);
      await restoreDealIn(id);
      await changeStatus(id, { status: 'won' });
      const other = await create({ title: 'Other', value: 1 });
      await removeDeal(other.id);
      await sync();
      const rebuilt = new MemoryReadModelStore().collection(dealsProjection);
      await rebuilt.apply(await store.readAll());
      expect(await rebuilt.get('co-1', id)).to.deep.equal(await deals.get('co-1', id));
      expect(await rebuilt.get('co-1', other.id)).to.equal(null);
    });
  });

  describe('given a deal whose contact is deleted', () => {
    it('shows the contact as its id and nulls, keeping the deal\'s updatedAt and revision; restored, the contact again', async () => {
      const contact = await contactIn('co-1', 'Ada', '+49151000');
      const deal = await create({ title: 'T', value: 1, contactId: contact.id });
      await sync();
      const created = await deals.get('co-1', deal.id);
      now += 60_000;
      await deleteContactIn('co-1', contact.id);
      const [deleted] = (await sync()).filter((e) => e.type === 'ContactDeleted');
      const doc = await deals.get('co-1', deal.id);
      expect(doc!.deal).to.deep.equal({ ...deal, contact: goneContact(contact.id) });
      expect(doc!.position).to.equal(deleted!.position);
      expect(doc!.revision).to.equal(created!.revision);
      // Applied again: nothing changes.
      await deals.apply([deleted!]);
      expect(await deals.get('co-1', deal.id)).to.equal(doc);

      await restoreContactIn('co-1', contact.id);
      await sync();
      expect(await dealIn('co-1', deal.id)).to.deep.equal(deal);
    });

    it('answers a status change with the contact as its id and nulls, records it so, and shows what it answered', async () => {
      const contact = await contactIn('co-1', 'Ada', '+49151000');
      const deal = await create({ title: 'T', value: 1, contactId: contact.id });
      await deleteContactIn('co-1', contact.id);
      const answered = await changeStatus(deal.id, { status: 'won' });
      expect(answered.contact).to.deep.equal(goneContact(contact.id));
      const events = await sync();
      const changed = events.find((e) => e.type === 'DealStatusChanged');
      expect((changed!.data as { deal: Deal }).deal).to.deep.equal(answered);
      expect(await dealIn('co-1', deal.id)).to.deep.equal(answered);
      // A change that moves nothing answers the same.
      expect(await changeStatus(deal.id, { status: 'won' })).to.deep.equal(answered);
    });

    it('refuses a new deal with that contact, as an unknown one', async () => {
      const contact = await contactIn('co-1', 'Ada', '+49151000');
      await deleteContactIn('co-1', contact.id);
      const result = await createDeal(deps, { companyId: 'co-1', fields: { title: 'T', value: 1, contactId: contact.id }, metadata });
      expect(result).to.deep.equal(E.left({ kind: 'ContactNotInCompany' }));
    });

    it('restores a deleted deal with the contact as it is now: its id and nulls while deleted, the contact once restored', async () => {
      const contact = await contactIn('co-1', 'Ada', '+49151000');
      const deal = await create({ title: 'T', value: 1, contactId: contact.id });
      await removeDeal(deal.id);
      await deleteContactIn('co-1', contact.id);
      const restored = await restoreDealIn(deal.id);
      expect(restored).to.deep.equal({ ...deal, contact: goneContact(contact.id) });
      await sync();
      expect(await dealIn('co-1', deal.id)).to.deep.equal(restored);
      await restoreContactIn('co-1', contact.id);
      await sync();
      expect(await dealIn('co-1', deal.id)).to.deep.equal(deal);
      // A restore of a deal that is not deleted answers it with its contact as it is now, and writes nothing.
      const head = await store.headPosition();
      expect(await restoreDealIn(deal.id)).to.deep.equal(deal);
      expect(await store.headPosition()).to.equal(head);
    });

    it('records the newer summary when the contact changes while the deal is being restored', async () => {
      const contact = await contactIn('co-1', 'Ada', '+49151000');
      const deal = await create({ title: 'T', value: 1, contactId: contact.id });
      await removeDeal(deal.id);
      await deleteContactIn('co-1', contact.id);
      const restored = await restoreDealIn(deal.id, 'co-1', {
        ...deps,
        eventStore: racing(store, async () => {
          await restoreContactIn('co-1', contact.id);
          await updateContactIn('co-1', contact.id, { name: 'Ada King' });
        }),
      });
      expect(restored.contact).to.include({ id: contact.id, name: 'Ada King', phoneNumber: '+49151000' });
      const stream = await store.readStream(`deal-${deal.id}`);
      expect(stream.map((event) => event.type)).to.deep.equal(['DealCreated', 'DealDeleted', 'DealRestored', 'DealContactRefreshed']);
      expect(stream[2]!.data).to.have.nested.property('deal.contact.name', null);
      await sync();
      expect(await dealIn('co-1', deal.id)).to.deep.equal(restored);
    });
  });

  describe('given events whose contact or user fields read as null (the person erased)', () => {
    it('shows an erased contact as its id and nulls, and no assigned user it cannot name (its name and e-mail null)', async () => {
      const data = {
        dealId: 'd-9',
        companyId: 'co-1',
        title: 'Erased parties',
        description: null,
        value: 5,
        currency: 'EUR',
        stage: null,
        priority: 'medium',
        probability: null,
        expectedCloseDate: null,
        source: null,
        contact: goneContact('c-9'),
        assignedTo: { id: 'u-9', name: null, email: null },
        createdAt: iso(0),
      };
      await store.append('deal-d-9', [{ id: newId(), type: 'DealCreated', data, metadata }], 'no_stream');
      await sync();
      expect(await dealIn('co-1', 'd-9')).to.include({ title: 'Erased parties', assignedTo: null });
      expect((await dealIn('co-1', 'd-9')).contact).to.deep.equal(goneContact('c-9'));
    });

    it('takes a contact change read as null as it is: the summary\'s field is null, not the value it had', async () => {
      const contact = await contactIn('co-1', 'Ada', '+49151000');
      const deal = await create({ title: 'T', value: 1, contactId: contact.id });
      await sync();
      const changes = { name: null, phoneNumber: null };
      const snapshot = { ...contact, name: null, phoneNumber: null, tags: null, updatedAt: iso(1) };
      await store.append(
        `contact-${contact.id}`,
        [{ id: newId(), type: 'ContactUpdated', data: { contactId: contact.id, companyId: 'co-1', changes, previous: changes, updatedAt: iso(1), contact: snapshot }, metadata }],
        0,
      );
      await sync();
      expect((await dealIn('co-1', deal.id)).contact).to.deep.equal({ id: contact.id, name: null, email: 'first@example.org', phoneNumber: null, currentCompany: null });
    });
  });

  describe('given a stored deal event its codec refuses', () => {
    it('stops with an error naming the event (the log and the code disagree)', async () => {
      await store.append('deal-x', [{ id: newId(), type: 'DealCreated', data: { dealId: 'x' }, metadata }], 'no_stream');
      let error: unknown;
      await deals.apply(await store.readAll()).catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(UndecodableEventError);
    });
  });

  describe('given several deals', () => {
    beforeEach(async () => {
      await create({ title: 'A', value: 1, stage: 'Lead' });
      now += 60_000;
      const b = await create({ title: 'B', value: 1, stage: 'Lead' });
      now += 60_000;
      await create({ title: 'C', value: 1, stage: 'Proposal' });
      now += 60_000;
      const d = await create({ title: 'D', value: 1, stage: 'Proposal' });
      now += 60_000;
      await create({ title: 'Other company', value: 1, stage: 'Lead' }, 'co-2');
      now += 60_000;
      await changeStatus(b.id, { status: 'won' }); // updatedAt = minute 5
      await changeStatus(d.id, { status: 'lost' });
      await sync();
    });

    it('lists them in creation order with the total', async () =>
      expect(await list()).to.deep.equal({ titles: ['A', 'B', 'C', 'D'], total: 4 }));

    it('pages', async () => expect(await list({ page: 2, limit: 3 })).to.deep.equal({ titles: ['D'], total: 4 }));

    it('filters by status', async () => {
      expect(await list({ status: 'won' })).to.deep.equal({ titles: ['B'], total: 1 });
      expect(await list({ status: 'open' })).to.deep.equal({ titles: ['A', 'C'], total: 2 });
    });

    it('filters by stage, exactly and case-sensitively', async () => {
      expect(await list({ stage: 'Lead' })).to.deep.equal({ titles: ['A', 'B'], total: 2 });
      expect(await list({ stage: 'lead' })).to.deep.equal({ titles: [], total: 0 });
      expect(await list({ stage: 'Lea' })).to.deep.equal({ titles: [], total: 0 });
    });

    it('lists deals created strictly after createdSince', async () =>
      expect(await list({ createdSince: iso(1) })).to.deep.equal({ titles: ['C', 'D'], total: 2 }));

    it('lists deals updated strictly after updatedSince', async () => {
      expect(await list({ updatedSince: iso(3) })).to.deep.equal({ titles: ['B', 'D'], total: 2 });
      expect(await list({ updatedSince: iso(5) })).to.deep.equal({ titles: [], total: 0 });
    });

    it('combines filters', async () => {
      expect(await list({ status: 'lost', stage: 'Proposal' })).to.deep.equal({ titles: ['D'], total: 1 });
      expect(await list({ status: 'won', stage: 'Proposal' })).to.deep.equal({ titles: [], total: 0 });
      expect(await list({ stage: 'Lead', createdSince: iso(0) })).to.deep.equal({ titles: ['B'], total: 1 });
    });
  });
});

describe('dealListQuery', () => {
  it('builds typed filters in creation order', () =>
    expect(
      dealListQuery({
        companyId: 'co-1',
        status: 'won',
        stage: 'Closed Won',
        createdSince: '2024-05-01',
        updatedSince: '2024-05-01T12:00:00+02:00',
        page: 2,
        limit: 10,
      }),
    ).to.deep.equal({
      companyId: 'co-1',
      filters: [
        { op: 'eq', field: 'deal.status', value: 'won' },
        { op: 'eq', field: 'deal.stage', value: 'Closed Won' },
        { op: 'gt', field: 'deal.createdAt', value: '2024-05-01T00:00:00.000Z' },
        { op: 'gt', field: 'deal.updatedAt', value: '2024-05-01T10:00:00.000Z' },
      ],
      page: 2,
      limit: 10,
      order: 'asc',
    }));

  it('has no filters without parameters', () =>
    expect(dealListQuery({ companyId: 'co-1', page: 1, limit: 50 }).filters).to.deep.equal([]));

  it('refuses an instant that is not a date', () =>
    expect(() => dealListQuery({ companyId: 'co-1', updatedSince: 'yesterday', page: 1, limit: 50 })).to.throw(RangeError));
});
