import { expect } from 'chai';
import { join } from 'node:path';
import { SqliteReadModelStore } from '../../../src/adapters/sqlite/SqliteReadModelStore.js';
import { tempDir } from '../../support/tempStore.js';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import type { ChangeDealStatus } from '../../../src/features/deals/domain/dealCommands.js';
import { webhookEventId } from '../../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { collectionOf, feedDocumentId, webhookEventDataOf, type WebhookEventCollections } from '../../../src/features/webhookEvents/readModels/webhookEventsProjection.js';
import { recentWebhookEvents, recentWebhookEventsQuery } from '../../../src/features/webhookEvents/readModels/webhookEventQueries.js';
import { StoredHistory } from './storedHistory.js';
import { projectionOf, WEBHOOK_EVENT_TYPES, deriveWebhookEvents, webhookEventCollections, webhookEventsProjections } from '../../support/webhookEvents.js';

const at = (minutes: number): string => new Date(Date.parse('2024-05-01T10:00:00.000Z') + minutes * 60_000).toISOString();

describe('webhook events projection', () => {
  let history: StoredHistory;
  let collections: WebhookEventCollections;

  /** Applies the whole log to every collection, as the runner would (again: a replay). */
  const applyLog = async () => {
    for (const type of WEBHOOK_EVENT_TYPES) await collectionOf(collections, type).apply(history.events);
  };
  const createContact = (contactId: string, minutes: number, companyId = 'co-1') =>
    history.contact({
      type: 'CreateContact',
      contactId,
      companyId,
      fields: { name: `Contact ${contactId}`, phoneNumber: `+4915100${minutes}`, tags: ['vip'] },
      at: new Date(at(minutes)),
    });
  const createDeal = (dealId: string, minutes: number) =>
    history.deal({
      type: 'CreateDeal',
      dealId,
      companyId: 'co-1',
      fields: { title: `Deal ${dealId}`, value: 1, stage: 'Lead' },
      contact: null,
      assignedTo: null,
      at: new Date(at(minutes)),
    });
  const changeDeal = (dealId: string, change: ChangeDealStatus['change'], minutes: number) =>
    history.one(history.deal({ type: 'ChangeDealStatus', dealId, companyId: 'co-1', change, contact: null, at: new Date(at(minutes)) }));
  const recentIds = async (params: { type: (typeof WEBHOOK_EVENT_TYPES)[number]; since?: string; limit?: number; companyId?: string }) =>
    (await recentWebhookEvents(collections, { companyId: 'co-1', limit: 100, ...params })).map((doc) => webhookEventDataOf(doc).id);

  beforeEach(() => {
    history = new StoredHistory();
    collections = webhookEventCollections(new MemoryReadModelStore());
  });

  it('has one read model per webhook event type, each fed every event that derives one, and the deletes and restores of the records it carries', () => {
    expect(webhookEventsProjections.map((p) => p.name)).to.deep.equal(WEBHOOK_EVENT_TYPES.map((type) => `webhook_events.${type}`));
    const lifecycle = ['ContactDeleted', 'ContactRestored', 'ContactErased', 'DealDeleted', 'DealRestored'];
    for (const projection of webhookEventsProjections) {
      expect([...projection.eventTypes]).to.include.members(['ContactCreated', 'ContactUpdated', 'DealCreated', 'DealStatusChanged', ...lifecycle]);
    }
    // A delete finds a record's events through the index on its id; an erasure a person's through the ids its fields hold.
    const indexesOf = (type: string) => webhookEventsProjections.find((p) => p.name === `webhook_events.${type}`)!.indexes;
    for (const type of ['contact.created', 'contact.updated']) expect(indexesOf(type), type).to.deep.equal([['event.timestamp'], ['event.data.id']]);
    for (const type of ['deal.created', 'deal.updated', 'deal.stage_changed', 'deal.lost']) {
      expect(indexesOf(type), type).to.deep.equal([['event.timestamp'], ['event.data.id'], ['event.data.contact.id'], ['event.data.assignedTo.id']]);
    }
    expect(indexesOf('deal.won')).to.deep.equal([['event.timestamp'], ['event.data.id'], ['event.data.contact.id']]);
    for (const type of ['contact.deleted', 'contact.restored', 'contact.erased', 'deal.deleted', 'deal.restored']) {
      expect(indexesOf(type), type).to.deep.equal([['event.timestamp']]);
    }
  });

  it('keeps one document per derived webhook event: keyed by its stored event\'s position, its derivation ordinal, the event\'s type, time, data, id and source', async () => {
    createDeal('d-1', 0);
    const stored = changeDeal('d-1', { status: 'won', stage: 'Closed' }, 5);
    await applyLog();
    const derived = deriveWebhookEvents(stored);
    expect(derived).to.have.length(3);
    for (const [ordinal, event] of derived.entries()) {
      const doc = await collectionOf(collections, event.type).get('co-1', feedDocumentId(stored.position));
      expect(doc).to.deep.equal({
        id: feedDocumentId(stored.position),
        companyId: 'co-1',
        position: stored.position,
        ordinal,
        event: { type: event.type, timestamp: at(5), data: event.data, eventId: event.eventId, source: 'api' },
      });
    }
    expect(await recentWebhookEvents(collections, { companyId: 'co-1', type: 'deal.lost', limit: 10 })).to.deep.equal([]);
  });

  it('targets only the event of its own type (none when the stored event derives none of it)', () => {
    createDeal('d-1', 0);
    const stored = changeDeal('d-1', { stage: 'Proposal' }, 1);
    expect(projectionOf('deal.stage_changed').targets(stored)).to.deep.equal([
      { kind: 'id', companyId: 'co-1', id: feedDocumentId(stored.position) },
    ]);
    expect(projectionOf('deal.won').targets(stored)).to.deep.equal([]);
    expect(projectionOf('contact.created').targets(stored)).to.deep.equal([]);
  });

  it('keys documents in log order, whatever the webhook event ids (random UUIDv5s)', () => {
    expect(feedDocumentId('0')).to.equal('010');
    expect(feedDocumentId('2138576')).to.equal('072138576');
    const positions = ['0', '9', '10', '2138576', '18446744073709551615', '340282366920938463463374607431768211455'];
    expect(positions.map(feedDocumentId)).to.deep.equal(positions.map(feedDocumentId).sort());
    for (let i = 0; i < 12; i++) createContact(`c-${i}`, i);
    const projection = projectionOf('contact.created');
    const created = history.events.filter((event) => event.type === 'ContactCreated');
    const keys = created.map((event) => projection.evolve(null, event)!.id);
    expect(keys).to.deep.equal([...keys].sort());
    expect(new Set(keys).size).to.equal(created.length);
    const eventIds = created.map((event) => projection.evolve(null, event)!.event.eventId);
    expect(eventIds).to.deep.equal(created.map((event) => webhookEventId(event.id, 'contact.created')));
    expect(eventIds).to.not.deep.equal([...eventIds].sort());
  });

  it('after an upgrade, lists the documents an earlier release keyed by their eventId beside the new ones (SQLite file)', async () => {
    createContact('c-1', 0);
    createContact('c-2', 10);
    const [first, second] = history.events.filter((event) => event.type === 'ContactCreated');
    const projection = projectionOf('contact.created');
    const dir = tempDir('feed-keys-');
    const file = join(dir.path, 'read-models.sqlite');
    // The earlier release: the same projection, its documents keyed by the webhook event's id.
    const earlier: typeof projection = {
      ...projection,
      targets: (event) => projection.targets(event).map((target) => ({ ...target, id: webhookEventId(event.id, 'contact.created') })),
      evolve: (doc, event) => {
        const next = projection.evolve(doc, event);
        return next && !doc ? { ...next, id: next.event.eventId } : next;
      },
    };
    const before = SqliteReadModelStore.open(file);
    await before.collection(earlier).apply([first!]);
    await before.close();
    const after = SqliteReadModelStore.open(file);
    try {
      const collection = after.collection(projection);
      // It resumes after the earlier release's checkpoint (documents and checkpoint commit together).
      await collection.apply([second!]);
      const listed = (await collection.list(recentWebhookEventsQuery({ companyId: 'co-1', type: 'contact.created', limit: 10 }))).items;
      expect(listed.map((doc) => [doc.id, doc.event.eventId])).to.deep.equal([
        [feedDocumentId(second!.position), webhookEventId(second!.id, 'contact.created')],
        [webhookEventId(first!.id, 'contact.created'), webhookEventId(first!.id, 'contact.created')],
      ]);
    } finally {
      await after.close();
      dir.dispose();
    }
  });

  it('changes nothing when the log is applied again (replay)', async () => {
    createContact('c-1', 0);
    createDeal('d-1', 1);
    changeDeal('d-1', { status: 'lost' }, 2);
    await applyLog();
    const everything = () =>
      Promise.all(WEBHOOK_EVENT_TYPES.map((type) => collectionOf(collections, type).list(recentWebhookEventsQuery({ companyId: 'co-1', type, limit: 100 }))));
    const before = await everything();
    await applyLog();
    const after = await everything();
    expect(after).to.deep.equal(before);
    // In the catalogue's order: contact created, updated, deleted, restored, erased; deal created, updated, staged, won, lost, deleted, restored.
    expect(after.map((page) => page.total)).to.deep.equal([1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0]);
  });

  it('keeps a document as first derived: evolve never changes an existing one', () => {
    createContact('c-1', 0);
    const [stored] = history.events;
    const projection = projectionOf('contact.created');
    const doc = projection.evolve(null, stored!)!;
    expect(projection.evolve(doc, stored!)).to.equal(doc);
    expect(projectionOf('deal.created').evolve(null, stored!)).to.equal(null);
  });

  describe('the recent query', () => {
    beforeEach(async () => {
      createContact('c-1', 0);
      createContact('c-2', 10);
      createContact('c-3', 20);
      createContact('theirs', 30, 'co-2');
      createDeal('d-1', 40);
      changeDeal('d-1', { status: 'won' }, 50);
      await applyLog();
    });

    it('lists a company\'s events of one type, newest first', async () => {
      expect(await recentIds({ type: 'contact.created' })).to.deep.equal(['c-3', 'c-2', 'c-1']);
      expect(await recentIds({ type: 'contact.created', companyId: 'co-2' })).to.deep.equal(['theirs']);
      expect(await recentIds({ type: 'deal.won' })).to.deep.equal(['d-1']);
      expect(await recentIds({ type: 'deal.updated' })).to.deep.equal(['d-1']);
      expect(await recentIds({ type: 'contact.updated' })).to.deep.equal([]);
    });

    it('leaves out the events of a deleted contact until it is restored, keeping its documents and their positions', async () => {
      history.contact({
        type: 'UpdateContact',
        contactId: 'c-2',
        companyId: 'co-1',
        changes: { city: 'Graz' },
        at: new Date(at(60)),
      });
      const remove = (contactId: string, companyId = 'co-1') =>
        history.contact({ type: 'DeleteContact', contactId, companyId, at: new Date(at(70)), restorableUntil: new Date(at(10_000)) });
      remove('c-2');
      remove('theirs', 'co-2');
      await applyLog();
      expect(await recentIds({ type: 'contact.created' })).to.deep.equal(['c-3', 'c-1']);
      expect(await recentIds({ type: 'contact.updated' })).to.deep.equal([]);
      expect(await recentIds({ type: 'contact.created', companyId: 'co-2' })).to.deep.equal([]);
      const kept = await collectionOf(collections, 'contact.created').listCreatedAfter('co-1', null, 10);
      expect(kept.map((doc) => [webhookEventDataOf(doc).id, doc.recordDeleted ?? false])).to.deep.equal([
        ['c-1', false],
        ['c-2', true],
        ['c-3', false],
      ]);
      const c2 = kept[1]!;
      expect(c2.position).to.equal(history.events.find((event) => event.type === 'ContactCreated' && event.stream === 'contact-c-2')!.position);

      history.contact({ type: 'RestoreContact', contactId: 'c-2', companyId: 'co-1', at: new Date(at(80)) });
      await applyLog();
      expect(await recentIds({ type: 'contact.created' })).to.deep.equal(['c-3', 'c-2', 'c-1']);
      expect(await recentIds({ type: 'contact.updated' })).to.deep.equal(['c-2']);
      const shown = await collectionOf(collections, 'contact.created').listCreatedAfter('co-1', null, 10);
      expect(shown.every((doc) => !('recordDeleted' in doc))).to.equal(true);
    });

    it('stops at the limit', async () => expect(await recentIds({ type: 'contact.created', limit: 2 })).to.deep.equal(['c-3', 'c-2']));

    it('keeps only events strictly after `since`', async () => {
      expect(await recentIds({ type: 'contact.created', since: at(10) })).to.deep.equal(['c-3']);
      expect(await recentIds({ type: 'contact.created', since: at(9) })).to.deep.equal(['c-3', 'c-2']);
      expect(await recentIds({ type: 'contact.created', since: '2024-05-01' })).to.deep.equal(['c-3', 'c-2', 'c-1']);
    });

    it('is a typed query: the type, `since` in canonical form, newest first, one page, no total', () => {
      const query = recentWebhookEventsQuery({ companyId: 'co-1', type: 'deal.won', since: '2024-05-01T12:00:00+02:00', limit: 7 });
      expect(query).to.deep.equal({
        companyId: 'co-1',
        filters: [
          { op: 'eq', field: 'event.type', value: 'deal.won' },
          { op: 'eq', field: 'recordDeleted', value: null },
          { op: 'gt', field: 'event.timestamp', value: '2024-05-01T10:00:00.000Z' },
        ],
        page: 1,
        limit: 7,
        order: 'desc',
        withTotal: false,
      });
    });
  });
});
