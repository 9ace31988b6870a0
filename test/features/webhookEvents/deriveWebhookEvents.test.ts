import { expect } from 'chai';
import { v5 as uuidv5, validate as isUuid, version as uuidVersion } from 'uuid';
import { UndecodableEventError } from '../../../src/application/versioning/UndecodableEventError.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import type { ChangeDealStatus, CreateDeal } from '../../../src/features/deals/domain/dealCommands.js';
import type { Deal } from '../../../src/features/deals/domain/dealView.js';
import { WEBHOOK_EVENT_ID_NAMESPACE, webhookEventId } from '../../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { StoredHistory } from './storedHistory.js';
import { WEBHOOK_EVENT_TYPES, deriveWebhookEvents, matchesFilters, webhookCompanyOf } from '../../support/webhookEvents.js';

const T0 = '2024-05-01T10:00:00.000Z';
const T1 = '2024-05-01T11:00:00.000Z';
const T2 = '2024-05-01T12:00:00.000Z';
const CLOSED = '2024-04-30T00:00:00.000Z';

const contactSummary = {
  id: 'c-1',
  name: 'Ada Lovelace',
  email: 'ada@example.org',
  phoneNumber: '+442079460000',
  currentCompany: 'Engines Ltd',
};
const user = { id: 'u-1', name: 'Sam Seller', email: 'sam@example.org' };

const createDeal = (overrides: Partial<CreateDeal> = {}): CreateDeal => ({
  type: 'CreateDeal',
  dealId: 'd-1',
  companyId: 'co-1',
  fields: { title: 'Engines', value: 1000, currency: 'EUR', stage: 'Lead', probability: 40 },
  contact: contactSummary,
  assignedTo: user,
  at: new Date(T0),
  ...overrides,
});

const change = (fields: ChangeDealStatus['change'], at = T1, contact: ChangeDealStatus['contact'] = contactSummary): ChangeDealStatus => ({
  type: 'ChangeDealStatus',
  dealId: 'd-1',
  companyId: 'co-1',
  change: fields,
  contact,
  at: new Date(at),
});

/** The deal `d-1` as created by `createDeal()`, as the API shows it. */
const openDeal: Deal = {
  id: 'd-1',
  title: 'Engines',
  description: null,
  value: 1000,
  currency: 'EUR',
  stage: 'Lead',
  priority: 'medium',
  probability: 40,
  status: 'open',
  expectedCloseDate: null,
  actualCloseDate: null,
  source: null,
  contact: contactSummary,
  assignedTo: user,
  createdAt: T0,
  updatedAt: T0,
};

const typesOf = (event: RecordedEvent) => deriveWebhookEvents(event).map((derived) => derived.type);

describe('deriveWebhookEvents', () => {
  let history: StoredHistory;
  beforeEach(() => (history = new StoredHistory()));

  const createdContact = () =>
    history.one(
      history.contact({
        type: 'CreateContact',
        contactId: 'c-1',
        companyId: 'co-1',
        fields: { name: 'Ada Lovelace', phoneNumber: '+442079460000', email: 'ada@example.org', tags: ['vip', 'math'] },
        at: new Date(T0),
      }),
    );
  const openDealEvent = () => history.one(history.deal(createDeal()));

  describe('given a ContactCreated', () => {
    it('derives one contact.created carrying the Contact, its tags, time, source, position and revision', () => {
      const stored = createdContact();
      expect(deriveWebhookEvents(stored)).to.deep.equal([
        {
          eventId: webhookEventId(stored.id, 'contact.created'),
          type: 'contact.created',
          companyId: 'co-1',
          timestamp: T0,
          source: 'api',
          position: stored.position,
          streamRevision: 0,
          tags: ['vip', 'math'],
          data: {
            id: 'c-1',
            name: 'Ada Lovelace',
            firstName: null,
            lastName: null,
            phoneNumber: '+442079460000',
            email: 'ada@example.org',
            position: null,
            currentCompany: null,
            industrySector: null,
            city: null,
            country: null,
            tags: ['vip', 'math'],
            createdAt: T0,
            updatedAt: T0,
          },
        },
      ]);
    });
  });

  describe('given a ContactUpdated', () => {
    it('derives one contact.updated carrying the contact after the change (its snapshot), at the update time', () => {
      createdContact();
      const stored = history.one(
        history.contact(
          { type: 'UpdateContact', contactId: 'c-1', companyId: 'co-1', changes: { city: 'London', tags: ['math'] }, at: new Date(T1) },
          'cli',
        ),
      );
      const [derived, ...rest] = deriveWebhookEvents(stored);
      expect(rest).to.deep.equal([]);
      expect(derived).to.deep.include({
        eventId: webhookEventId(stored.id, 'contact.updated'),
        type: 'contact.updated',
        companyId: 'co-1',
        timestamp: T1,
        source: 'cli',
        position: stored.position,
        streamRevision: 1,
        // For filters: the tags after the change, then the one it removed.
        tags: ['math', 'vip'],
      });
      expect(derived!.data).to.deep.equal((stored.data as { contact: unknown }).contact);
      expect(derived!.data).to.include({ name: 'Ada Lovelace', city: 'London', createdAt: T0, updatedAt: T1 });
      expect(derived!.data).to.deep.include({ tags: ['math'] });
    });

    it('reaches a subscription filtering on a tag the update removed, and not one on a tag never carried', () => {
      createdContact();
      const stored = history.one(
        history.contact({ type: 'UpdateContact', contactId: 'c-1', companyId: 'co-1', changes: { tags: [] }, at: new Date(T1) }),
      );
      const [derived] = deriveWebhookEvents(stored);
      expect(matchesFilters({ tags: ['vip'] }, derived!)).to.equal(true);
      expect(matchesFilters({ tags: ['partner'] }, derived!)).to.equal(false);
    });

    it('matches on the tags after the change alone when none was removed', () => {
      createdContact();
      const stored = history.one(
        history.contact({ type: 'UpdateContact', contactId: 'c-1', companyId: 'co-1', changes: { city: 'Paris' }, at: new Date(T1) }),
      );
      expect(deriveWebhookEvents(stored)[0]!.tags).to.deep.equal(['vip', 'math']);
    });
  });

  describe('given a DealCreated', () => {
    it('derives one deal.created carrying the Deal, with no tags', () => {
      const stored = openDealEvent();
      expect(deriveWebhookEvents(stored)).to.deep.equal([
        {
          eventId: webhookEventId(stored.id, 'deal.created'),
          type: 'deal.created',
          companyId: 'co-1',
          timestamp: T0,
          source: 'api',
          position: stored.position,
          streamRevision: 0,
          tags: [],
          data: openDeal,
        },
      ]);
    });
  });

  describe('given a DealStatusChanged', () => {
    beforeEach(() => openDealEvent());
    const changed = (fields: ChangeDealStatus['change'], at = T1) => history.one(history.deal(change(fields, at)));

    it('to won: deal.won with exactly the specification\'s fields, then deal.updated with the Deal', () => {
      const stored = changed({ status: 'won', actualCloseDate: CLOSED });
      const derived = deriveWebhookEvents(stored);
      expect(derived.map((d) => d.type)).to.deep.equal(['deal.won', 'deal.updated']);
      expect(derived[0]!.data).to.deep.equal({
        id: 'd-1',
        title: 'Engines',
        value: 1000,
        currency: 'EUR',
        stage: 'Lead',
        status: 'won',
        wonAt: CLOSED,
        contact: { id: 'c-1', name: 'Ada Lovelace', email: 'ada@example.org' },
      });
      expect(derived[1]!.data).to.deep.equal({ ...openDeal, status: 'won', actualCloseDate: CLOSED, updatedAt: T1 });
      for (const d of derived) expect(d).to.include({ timestamp: T1, companyId: 'co-1', position: stored.position, streamRevision: 1 });
    });

    it('to won without a close date: wonAt is the time it closed', () => {
      const [won] = deriveWebhookEvents(changed({ status: 'won' }));
      expect(won!.data).to.include({ wonAt: T1 });
    });

    it('to won, for a deal without a contact: deal.won has contact null', () => {
      history.deal(createDeal({ dealId: 'd-2', contact: null }));
      const stored = history.one(history.deal({ ...change({ status: 'won' }), dealId: 'd-2' }));
      expect(deriveWebhookEvents(stored)[0]!.data).to.include({ contact: null });
    });

    it('to lost: deal.lost, then deal.updated, both with the Deal', () => {
      const derived = deriveWebhookEvents(changed({ status: 'lost' }));
      expect(derived.map((d) => d.type)).to.deep.equal(['deal.lost', 'deal.updated']);
      const lost = { ...openDeal, status: 'lost', actualCloseDate: T1, updatedAt: T1 };
      expect(derived.map((d) => d.data)).to.deep.equal([lost, lost]);
    });

    it('stage moved: deal.stage_changed, then deal.updated', () => {
      const derived = deriveWebhookEvents(changed({ stage: 'Proposal' }));
      expect(derived.map((d) => d.type)).to.deep.equal(['deal.stage_changed', 'deal.updated']);
      expect(derived[0]!.data).to.deep.equal({ ...openDeal, stage: 'Proposal', updatedAt: T1 });
    });

    it('stage cleared: deal.stage_changed, then deal.updated', () =>
      expect(typesOf(changed({ stage: null }))).to.deep.equal(['deal.stage_changed', 'deal.updated']));

    it('won and stage moved at once: deal.won, deal.stage_changed, then deal.updated once', () =>
      expect(typesOf(changed({ status: 'won', stage: 'Closed' }))).to.deep.equal(['deal.won', 'deal.stage_changed', 'deal.updated']));

    it('lost and stage moved at once: deal.lost, deal.stage_changed, then deal.updated once', () =>
      expect(typesOf(changed({ status: 'lost', stage: 'Closed' }))).to.deep.equal(['deal.lost', 'deal.stage_changed', 'deal.updated']));

    it('reopened: deal.updated only', () => {
      changed({ status: 'won' });
      const stored = changed({ status: 'open' }, T2);
      expect(typesOf(stored)).to.deep.equal(['deal.updated']);
      expect(deriveWebhookEvents(stored)[0]!.data).to.include({ status: 'open', actualCloseDate: null, updatedAt: T2 });
    });

    it('close date moved alone: deal.updated only', () => {
      changed({ status: 'won' });
      expect(typesOf(changed({ actualCloseDate: CLOSED }, T2))).to.deep.equal(['deal.updated']);
    });

    it('won corrected to lost: deal.lost, then deal.updated, keeping the close date', () => {
      changed({ status: 'won', actualCloseDate: CLOSED });
      const derived = deriveWebhookEvents(changed({ status: 'lost' }, T2));
      expect(derived.map((d) => d.type)).to.deep.equal(['deal.lost', 'deal.updated']);
      expect(derived[0]!.data).to.include({ status: 'lost', actualCloseDate: CLOSED });
    });

    it('carries the contact summary recorded with the change, not the one of the creation', () => {
      const renamed = { ...contactSummary, name: 'Ada King' };
      const stored = history.one(history.deal(change({ stage: 'Proposal' }, T1, renamed)));
      for (const derived of deriveWebhookEvents(stored)) expect(derived.data).to.have.nested.property('contact.name', 'Ada King');
    });
  });

  describe('given events whose personal fields read as null (the person erased)', () => {
    it('carries a contact\'s fields null as they read, and no tags for filters to match', () => {
      const stored = history.other(
        'ContactCreated',
        { contactId: 'c-9', companyId: 'co-1', name: null, phoneNumber: null, email: null, tags: null, createdAt: T0 },
        'contact-c-9',
      );
      const [derived] = deriveWebhookEvents(stored);
      expect(derived!.type).to.equal('contact.created');
      expect(derived!.tags).to.deep.equal([]);
      expect(derived!.data).to.deep.include({ id: 'c-9', name: null, phoneNumber: null, email: null, tags: null });
      expect(matchesFilters({ tags: ['vip'] }, derived!)).to.equal(false);
    });

    it('carries a deal\'s contact and user as the change recorded them: their ids, their fields null', () => {
      const erasedContact = { id: 'c-1', name: null, email: null, phoneNumber: null, currentCompany: null };
      const erasedUser = { id: 'u-1', name: null, email: null };
      const deal = { ...openDeal, status: 'won', actualCloseDate: CLOSED, updatedAt: T1, contact: erasedContact, assignedTo: erasedUser };
      const stored = history.other(
        'DealStatusChanged',
        { dealId: 'd-1', companyId: 'co-1', status: { from: 'open', to: 'won' }, actualCloseDate: CLOSED, updatedAt: T1, deal },
        'deal-d-1',
      );
      const derived = deriveWebhookEvents(stored);
      expect(derived.map((d) => d.type)).to.deep.equal(['deal.won', 'deal.updated']);
      expect(derived[0]!.data).to.deep.include({ contact: { id: 'c-1', name: null, email: null } });
      expect(derived[1]!.data).to.deep.equal(deal);
    });
  });

  describe('given any other stored event', () => {
    it('derives nothing', () => {
      for (const [type, data] of [
        ['ApiKeyIssued', { keyId: 'k' }],
        ['CompanyCreated', { companyId: 'co-1' }],
        ['UserCreated', { userId: 'u-1' }],
        ['AgentCreated', { agentId: 'a-1' }],
        ['WebhookSubscribed', { subscriptionId: 's-1' }],
        ['PhoneNumberReserved', { contactId: 'c-1' }],
      ] as const) {
        expect(deriveWebhookEvents(history.other(type, data)), type).to.deep.equal([]);
      }
    });
  });

  describe('given a stored contact or deal event the code cannot decode', () => {
    it('throws, naming the event (the log and the code disagree)', () => {
      const broken = { ...history.other('ContactUpdated', { contactId: 'c-1', companyId: 'co-1', changes: {}, updatedAt: T1 }) };
      expect(() => deriveWebhookEvents(broken)).to.throw(UndecodableEventError, /ContactUpdated/);
    });
  });

  describe('webhookCompanyOf (what the fan-out reads to skip companies without subscriptions)', () => {
    it('names the company of every webhook event derived, for every source event type', () => {
      const events = [
        createdContact(),
        history.one(
          history.contact({ type: 'UpdateContact', contactId: 'c-1', companyId: 'co-1', changes: { city: 'Paris' }, at: new Date(T1) }),
        ),
        openDealEvent(),
        history.one(history.deal(change({ status: 'won', stage: 'Closed' }))),
        history.one(history.deal(change({ status: 'lost' }, T2))),
        history.one(history.deal(change({ status: 'open', stage: 'Lead' }, T2))),
      ];
      expect(events.map((event) => event.type)).to.include.members(['ContactCreated', 'ContactUpdated', 'DealCreated', 'DealStatusChanged']);
      for (const event of events) {
        const derived = deriveWebhookEvents(event);
        expect(derived, event.type).to.have.length.above(0);
        for (const webhookEvent of derived) expect(webhookCompanyOf(event), event.type).to.equal(webhookEvent.companyId);
      }
    });

    it('is null for a type that derives nothing, even with a company, and for a company that is not a text', () => {
      expect(webhookCompanyOf(history.other('CompanyCreated', { companyId: 'co-1' }))).to.equal(null);
      expect(webhookCompanyOf(history.other('PhoneNumberReserved', { companyId: 'co-1', contactId: 'c-1' }))).to.equal(null);
      expect(webhookCompanyOf(history.other('ContactCreated', { companyId: 7 }))).to.equal(null);
      expect(webhookCompanyOf(history.other('DealCreated', null))).to.equal(null);
    });
  });

  describe('event ids', () => {
    it('are the UUIDv5 of "<stored event id>:<type>" in the fixed namespace', () => {
      const stored = createdContact();
      const [derived] = deriveWebhookEvents(stored);
      expect(derived!.eventId).to.equal(uuidv5(`${stored.id}:contact.created`, WEBHOOK_EVENT_ID_NAMESPACE));
      expect(isUuid(derived!.eventId) && uuidVersion(derived!.eventId)).to.equal(5);
      expect(WEBHOOK_EVENT_ID_NAMESPACE).to.equal('6b8ceecf-f8a3-41c5-b6f1-944f2f2a720a');
    });

    it('are the same on every derivation of the same stored event (retries, redeliveries, replays)', () => {
      openDealEvent();
      const stored = history.one(history.deal(change({ status: 'won', stage: 'Closed' })));
      const replayed: RecordedEvent = JSON.parse(JSON.stringify(stored));
      expect(deriveWebhookEvents(replayed)).to.deep.equal(deriveWebhookEvents(stored));
    });

    it('differ across the types one stored event derives, and across stored events', () => {
      openDealEvent();
      const events = [
        history.one(history.deal(change({ status: 'won', stage: 'Closed' }))),
        history.one(history.deal(change({ status: 'lost', stage: 'Lead' }, T2))),
      ];
      const ids = events.flatMap(deriveWebhookEvents).map((derived) => derived.eventId);
      expect(ids).to.have.length(6);
      expect(new Set(ids).size).to.equal(6);
    });

    it('differ for every type of one stored event id', () => {
      const ids = WEBHOOK_EVENT_TYPES.map((type) => webhookEventId('0190c0de-0000-7000-8000-000000000001', type));
      expect(new Set(ids).size).to.equal(WEBHOOK_EVENT_TYPES.length);
    });
  });
});
