import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import type { CommandDeps } from '../../../src/application/commands/CommandDeps.js';
import { createContact } from '../../../src/features/contacts/application/createContact.js';
import { updateContact } from '../../../src/features/contacts/application/updateContact.js';
import { deleteContact } from '../../../src/features/contacts/application/deleteAndRestoreContact.js';
import type { EventStore } from '../../../src/application/ports/EventStore.js';
import { changeDealStatus } from '../../../src/features/deals/application/changeDealStatus.js';
import { createDeal } from '../../../src/features/deals/application/createDeal.js';
import type { DealWriteError } from '../../../src/features/deals/application/DealWriteError.js';
import type { DealStatusChanged } from '../../../src/features/deals/domain/dealEvents.js';
import type { Deal } from '../../../src/features/deals/domain/dealView.js';
import type { CreateDealFields, DealStatusChangeFields } from '../../../src/features/deals/domain/dealInput.js';
import { userStream } from '../../../src/features/users/domain/userEvents.js';
import { newId } from '../../../src/shared/ids.js';
import { tempDir } from '../../support/tempStore.js';

const metadata = { source: 'api' as const, correlationId: 'req-1', companyId: 'co-1', keyId: 'key-1' };
const T0 = Date.parse('2024-05-01T10:00:00.000Z');
const iso = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

describe('deal service (on the embedded event store)', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  let now: number;
  let deps: CommandDeps;

  beforeEach(() => {
    dir = tempDir('chronicle-deals-');
    store = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
    now = T0;
    deps = { eventStore: store, newId, clock: { now: () => new Date(now) } };
  });
  afterEach(async () => {
    await store.close();
    dir.dispose();
  });

  const create = (fields: CreateDealFields, companyId = 'co-1') =>
    createDeal(deps, { companyId, fields, metadata: { ...metadata, companyId } });
  const changeStatus = (dealId: string, change: DealStatusChangeFields, companyId = 'co-1') =>
    changeDealStatus(deps, { companyId, dealId, change, metadata: { ...metadata, companyId } });

  const created = async (fields: CreateDealFields, companyId = 'co-1') => {
    const result = await create(fields, companyId);
    if (E.isLeft(result)) return expect.fail(`expected a deal, got ${JSON.stringify(result.left)}`);
    return result.right;
  };
  const changed = async (dealId: string, change: DealStatusChangeFields) => {
    const result = await changeStatus(dealId, change);
    if (E.isLeft(result)) return expect.fail(`expected a deal, got ${JSON.stringify(result.left)}`);
    return result.right;
  };
  const failure = <A>(result: E.Either<DealWriteError, A>): DealWriteError => {
    if (E.isRight(result)) return expect.fail(`expected an error, got ${JSON.stringify(result.right)}`);
    return result.left;
  };
  const contactIn = async (companyId: string, fields: { name: string; phoneNumber: string; email?: string; currentCompany?: string }) => {
    const result = await createContact(deps, { companyId, fields, metadata: { ...metadata, companyId } });
    if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
    return result.right.contact;
  };
  const userIn = async (companyId: string, name: string, email: string): Promise<string> => {
    const userId = newId();
    const data = { userId, companyId, name, email, createdAt: iso(0) };
    const event = { id: newId(), type: 'UserCreated', data, metadata: { source: 'cli' as const, correlationId: 'cli-1' } };
    await store.append(userStream(userId), [event], 'no_stream');
    return userId;
  };

  describe('given no deals', () => {
    it('creates an open deal with the defaults, and returns its view and the position of its event', async () => {
      const { deal, position } = await created({ title: 'Small', value: 0 });
      expect(deal).to.deep.equal({
        id: deal.id,
        title: 'Small',
        description: null,
        value: 0,
        currency: 'EUR',
        stage: null,
        priority: 'medium',
        probability: null,
        status: 'open',
        expectedCloseDate: null,
        actualCloseDate: null,
        source: null,
        contact: null,
        assignedTo: null,
        createdAt: iso(0),
        updatedAt: iso(0),
      } satisfies Deal);
      const [event] = await store.readStream(`deal-${deal.id}`);
      expect(event).to.include({ type: 'DealCreated', position, revision: 0 });
      expect(event!.metadata).to.deep.equal(metadata);
    });

    it('embeds snapshots of the company’s contact and user', async () => {
      const contact = await contactIn('co-1', {
        name: 'Ada',
        phoneNumber: '+49151000',
        email: 'ada@example.org',
        currentCompany: 'Engines Ltd',
      });
      const userId = await userIn('co-1', 'Sam Seller', 'sam@example.org');
      const { deal } = await created({ title: 'Big', value: 10, contactId: contact.id, assignedToId: userId });
      expect(deal.contact).to.deep.equal({
        id: contact.id,
        name: 'Ada',
        email: 'ada@example.org',
        phoneNumber: '+49151000',
        currentCompany: 'Engines Ltd',
      });
      expect(deal.assignedTo).to.deep.equal({ id: userId, name: 'Sam Seller', email: 'sam@example.org' });
      const [event] = await store.readStream(`deal-${deal.id}`);
      expect(event!.data).to.deep.include({ contact: deal.contact, assignedTo: deal.assignedTo });
    });

    it('treats null contact and user ids as none', async () => {
      const { deal } = await created({ title: 'T', value: 1, contactId: null, assignedToId: null });
      expect(deal).to.include({ contact: null, assignedTo: null });
    });

    it('refuses a contact of another company: contact not in company, and appends nothing', async () => {
      const theirs = await contactIn('co-2', { name: 'Theirs', phoneNumber: '+49151000' });
      const before = (await store.readAll()).length;
      expect(failure(await create({ title: 'T', value: 1, contactId: theirs.id }))).to.deep.equal({ kind: 'ContactNotInCompany' });
      expect(await store.readAll()).to.have.length(before);
    });

    it('refuses an unknown contact: contact not in company', async () =>
      expect(failure(await create({ title: 'T', value: 1, contactId: newId() }))).to.deep.equal({ kind: 'ContactNotInCompany' }));

    it('refuses an unknown user: user not in company', async () =>
      expect(failure(await create({ title: 'T', value: 1, assignedToId: 'nobody' }))).to.deep.equal({ kind: 'UserNotInCompany' }));

    it('refuses a user of another company: user not in company, and appends nothing', async () => {
      const theirs = await userIn('co-2', 'Other', 'other@example.org');
      const before = (await store.readAll()).length;
      expect(failure(await create({ title: 'T', value: 1, assignedToId: theirs }))).to.deep.equal({ kind: 'UserNotInCompany' });
      expect(await store.readAll()).to.have.length(before);
    });

    it('refuses a status change of an unknown deal: not found', async () =>
      expect(failure(await changeStatus(newId(), { status: 'won' }))).to.deep.equal({ kind: 'DealNotFound' }));
  });

  describe('given an open deal', () => {
    let dealId: string;
    beforeEach(async () => {
      dealId = (await created({ title: 'Engines', value: 1000, stage: 'Lead', probability: 40 })).deal.id;
      now += 60_000;
    });

    it('wins it, closing it now, and records who did it', async () => {
      const { deal, position } = await changed(dealId, { status: 'won' });
      expect(deal).to.include({ status: 'won', stage: 'Lead', probability: 40, actualCloseDate: iso(1) });
      expect(deal).to.include({ createdAt: iso(0), updatedAt: iso(1) });
      const [, event] = await store.readStream(`deal-${dealId}`);
      expect(event).to.deep.include({
        type: 'DealStatusChanged',
        position,
        data: { dealId, companyId: 'co-1', status: { from: 'open', to: 'won' }, actualCloseDate: iso(1), updatedAt: iso(1), deal },
      });
      expect(event!.metadata).to.deep.equal(metadata);
    });

    it('loses it on the close date sent', async () => {
      const { deal } = await changed(dealId, { status: 'lost', actualCloseDate: '2024-04-30T00:00:00.000Z' });
      expect(deal).to.include({ status: 'lost', actualCloseDate: '2024-04-30T00:00:00.000Z' });
    });

    it('changes the stage alone, keeping it open', async () => {
      const { deal } = await changed(dealId, { stage: 'Proposal' });
      expect(deal).to.include({ status: 'open', stage: 'Proposal', actualCloseDate: null, updatedAt: iso(1) });
    });

    it('refuses a close date while it stays open, and appends nothing', async () => {
      const result = await changeStatus(dealId, { actualCloseDate: '2024-04-30T00:00:00.000Z' });
      expect(failure(result)).to.deep.equal({ kind: 'CloseDateOnOpenDeal' });
      expect(await store.readStream(`deal-${dealId}`)).to.have.length(1);
    });

    it('appends nothing for a change that changes nothing, and keeps updatedAt', async () => {
      const { deal, position } = await changed(dealId, { status: 'open', stage: 'Lead' });
      expect(position).to.equal(null);
      expect(deal.updatedAt).to.equal(iso(0));
      expect(await store.readStream(`deal-${dealId}`)).to.have.length(1);
    });

    it('refuses another company: not found, and appends nothing', async () => {
      expect(failure(await changeStatus(dealId, { status: 'won' }, 'co-2'))).to.deep.equal({ kind: 'DealNotFound' });
      expect(await store.readStream(`deal-${dealId}`)).to.have.length(1);
    });

    it('reopens it after a win, and corrects a win to a loss', async () => {
      await changed(dealId, { status: 'won' });
      now += 60_000;
      const lost = await changed(dealId, { status: 'lost' });
      // A correction keeps the date the deal closed.
      expect(lost.deal).to.include({ status: 'lost', actualCloseDate: iso(1), updatedAt: iso(2) });
      now += 60_000;
      const reopened = await changed(dealId, { status: 'open' });
      expect(reopened.deal).to.include({ status: 'open', actualCloseDate: null, updatedAt: iso(3) });
    });
  });

  describe('given a deal embedding a contact that was renamed since', () => {
    it('answers a status change with the contact as it is now', async () => {
      const contact = await contactIn('co-1', { name: 'Ada', phoneNumber: '+49151000' });
      const { deal } = await created({ title: 'T', value: 1, contactId: contact.id });
      const renamed = await updateContact(deps, { companyId: 'co-1', contactId: contact.id, changes: { name: 'Ada King' }, metadata });
      expect(E.isRight(renamed)).to.equal(true);
      const result = await changed(deal.id, { status: 'won' });
      expect(result.deal.contact).to.include({ id: contact.id, name: 'Ada King' });
      const [createdEvent, changedEvent] = await store.readStream(`deal-${deal.id}`);
      expect(createdEvent!.data).to.have.nested.property('contact.name', 'Ada');
      // The change records the whole deal as answered, with the contact as it was then.
      expect(changedEvent!.data).to.have.deep.property('deal', result.deal);
    });

    it('answers a change that changes nothing with the contact as it is now', async () => {
      const contact = await contactIn('co-1', { name: 'Ada', phoneNumber: '+49151000' });
      const { deal } = await created({ title: 'T', value: 1, contactId: contact.id });
      await updateContact(deps, { companyId: 'co-1', contactId: contact.id, changes: { name: 'Ada King' }, metadata });
      const result = await changed(deal.id, { status: 'open' });
      expect(result.position).to.equal(null);
      expect(result.deal.contact).to.include({ name: 'Ada King' });
    });
  });

  describe('given a contact deleted between a deal\'s create reading it and the deal\'s append', () => {
    it('records the contact as deleted on the deal right after (DealContactRefreshed): its id, every other field null', async () => {
      const contact = await contactIn('co-1', { name: 'Ada', phoneNumber: '+49151000', email: 'ada@example.org' });
      // The store the create sees: the contact is deleted just before the deal's event is appended.
      let deletedFirst = false;
      const racing: EventStore = Object.create(store) as EventStore;
      racing.append = async (stream, events, expected) => {
        if (!deletedFirst && events[0]?.type === 'DealCreated') {
          deletedFirst = true;
          const deleted = await deleteContact(deps, { companyId: 'co-1', contactId: contact.id, retentionMs: 86_400_000, metadata });
          expect(E.isRight(deleted)).to.equal(true);
        }
        return store.append(stream, events, expected);
      };
      const result = await createDeal({ ...deps, eventStore: racing }, { companyId: 'co-1', fields: { title: 'T', value: 1, contactId: contact.id }, metadata });
      if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
      const nulled = { id: contact.id, name: null, email: null, phoneNumber: null, currentCompany: null };
      expect(result.right.deal.contact).to.deep.equal(nulled);
      const events = await store.readStream(`deal-${result.right.deal.id}`);
      expect(events.map((event) => event.type)).to.deep.equal(['DealCreated', 'DealContactRefreshed']);
      expect(events[1]!.data).to.deep.include({ contact: nulled });
    });
  });

  describe('given a contact and a user whose persons were erased (their events read with their personal fields null)', () => {
    const erasedUser = async (): Promise<string> => {
      const userId = newId();
      const data = { userId, companyId: 'co-1', name: null, email: null, createdAt: iso(0) };
      await store.append(userStream(userId), [{ id: newId(), type: 'UserCreated', data, metadata: { source: 'cli' as const, correlationId: 'cli-1' } }], 'no_stream');
      return userId;
    };

    it('links no new deal to them, as to unknown ones, and appends nothing', async () => {
      const contactId = newId();
      const data = { contactId, companyId: 'co-1', name: null, phoneNumber: null, tags: null, createdAt: iso(0) };
      await store.append(`contact-${contactId}`, [{ id: newId(), type: 'ContactCreated', data, metadata }], 'no_stream');
      const userId = await erasedUser();
      const before = (await store.readAll()).length;
      expect(failure(await create({ title: 'T', value: 1, contactId }))).to.deep.equal({ kind: 'ContactNotInCompany' });
      expect(failure(await create({ title: 'T', value: 1, assignedToId: userId }))).to.deep.equal({ kind: 'UserNotInCompany' });
      expect(await store.readAll()).to.have.length(before);
    });

    it('records a status change of a deal assigned to an erased user with the user as read (its id, nulls), and answers it without a user it cannot name', async () => {
      const { deal } = await created({ title: 'T', value: 1 });
      const userId = await erasedUser();
      // A deal created before its user was erased: its DealCreated reads with the user's fields null.
      const [createdEvent] = await store.readStream(`deal-${deal.id}`);
      const dealId = newId();
      const data = { ...(createdEvent!.data as object), dealId, assignedTo: { id: userId, name: null, email: null } };
      await store.append(`deal-${dealId}`, [{ id: newId(), type: 'DealCreated', data, metadata }], 'no_stream');
      const result = await changed(dealId, { status: 'won' });
      expect(result.deal).to.include({ id: dealId, status: 'won', assignedTo: null });
      const [, recorded] = await store.readStream(`deal-${dealId}`);
      expect((recorded!.data as DealStatusChanged['data']).deal.assignedTo).to.deep.equal({ id: userId, name: null, email: null });
    });
  });
});
