import { expect } from 'chai';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import type { DealStatusChangeFields } from '../../../src/features/deals/domain/dealInput.js';
import { type WebhookEventType } from '../../../src/features/webhookEvents/domain/eventTypes.js';
import { cutFeedPage, eventFeedItemOf, readEventFeed } from '../../../src/features/webhookEvents/readModels/webhookEventFeed.js';
import { collectionOf, type WebhookEventCollections, type WebhookEventDoc } from '../../../src/features/webhookEvents/readModels/webhookEventsProjection.js';
import { StoredHistory } from './storedHistory.js';
import { WEBHOOK_EVENT_TYPES, deriveWebhookEvents, webhookEventCollections } from '../../support/webhookEvents.js';

/** A document of the feed's read models, as the projection writes them. */
const doc = (position: string, ordinal: number, type: WebhookEventType = 'deal.updated'): WebhookEventDoc => ({
  id: `${type}@${position}`,
  companyId: 'co-1',
  position,
  ordinal,
  event: { type, timestamp: '2024-05-01T12:00:00.000Z', data: {} as never, eventId: `${type}@${position}`, source: 'api' },
});
const ids = (docs: readonly WebhookEventDoc[]) => docs.map((d) => d.id);

/** A deterministic pseudo-random sequence (mulberry32), so a failure can be replayed. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

describe('company event feed', () => {
  describe('cutting a page (cutFeedPage)', () => {
    const won = doc('7', 0, 'deal.won');
    const stage = doc('7', 1, 'deal.stage_changed');
    const updated = doc('7', 2, 'deal.updated');
    const created = doc('5', 0, 'contact.created');
    const later = doc('12', 0, 'contact.updated');
    const candidates = [[created, later], [won], [stage], [updated]];

    it('merges the types by log position, then by derivation order within one stored event', () => {
      const page = cutFeedPage(candidates, { after: null, limit: 10, appliedUpTo: '100' });
      expect(ids(page.events)).to.deep.equal(ids([created, won, stage, updated, later]));
      expect(page).to.include({ hasMore: false, nextAfter: '12' });
    });

    it('compares positions as numbers, not as text', () => {
      const page = cutFeedPage([[doc('10', 0)], [doc('9', 0, 'deal.won')]], { after: null, limit: 10, appliedUpTo: '100' });
      expect(page.events.map((d) => d.position)).to.deep.equal(['9', '10']);
    });

    it('never splits the events of one stored event: the page ends before them', () => {
      const page = cutFeedPage(candidates, { after: null, limit: 3, appliedUpTo: '100' });
      expect(ids(page.events)).to.deep.equal(ids([created]));
      expect(page).to.include({ hasMore: true, nextAfter: '5' });
    });

    it('serves a stored event whole when it alone derives more events than the limit', () => {
      const page = cutFeedPage([[won], [stage], [updated], [later]], { after: '5', limit: 1, appliedUpTo: '100' });
      expect(ids(page.events)).to.deep.equal(ids([won, stage, updated]));
      expect(page).to.include({ hasMore: true, nextAfter: '7' });
    });

    it('serves nothing after the position every read model has applied', () => {
      const page = cutFeedPage(candidates, { after: null, limit: 10, appliedUpTo: '7' });
      expect(ids(page.events)).to.deep.equal(ids([created, won, stage, updated]));
      expect(page).to.include({ hasMore: true, nextAfter: '7' });
      const nothingApplied = cutFeedPage(candidates, { after: null, limit: 10, appliedUpTo: null });
      expect(nothingApplied).to.deep.equal({ events: [], hasMore: true, nextAfter: null });
    });

    it('answers an empty page with the request\'s own `after` as the next one', () => {
      expect(cutFeedPage([[], []], { after: '42', limit: 10, appliedUpTo: '100' })).to.deep.equal({
        events: [],
        hasMore: false,
        nextAfter: '42',
      });
      expect(cutFeedPage([], { after: null, limit: 10, appliedUpTo: null }).nextAfter).to.equal(null);
    });
  });

  describe('reading the feed from the read models', () => {
    let history: StoredHistory;
    let collections: WebhookEventCollections;

    beforeEach(() => {
      history = new StoredHistory();
      collections = webhookEventCollections(new MemoryReadModelStore());
    });

    /** A random history of two companies: contacts created and updated, deals created, won, lost, moved, reopened. */
    const randomHistory = (next: () => number, changes: number) => {
      const contacts: { id: string; companyId: string }[] = [];
      const deals: { id: string; companyId: string; status: 'open' | 'won' | 'lost' }[] = [];
      const at = (i: number) => new Date(Date.parse('2024-05-01T10:00:00.000Z') + i * 1000).toISOString();
      for (let i = 0; i < changes; i++) {
        const companyId = next() < 0.7 ? 'co-1' : 'co-2';
        const roll = next();
        const contact = contacts[Math.floor(next() * contacts.length)];
        const deal = deals[Math.floor(next() * deals.length)];
        if (roll < 0.2 || !contact) {
          const id = `c-${i}`;
          contacts.push({ id, companyId });
          history.contact({ type: 'CreateContact', contactId: id, companyId, fields: { name: `C ${i}`, phoneNumber: `+4915${i}000`, tags: [] }, at: new Date(at(i)) });
        } else if (roll < 0.35) {
          history.contact({ type: 'UpdateContact', contactId: contact.id, companyId: contact.companyId, changes: { city: `City ${i}` }, at: new Date(at(i)) });
        } else if (roll < 0.5 || !deal) {
          const id = `d-${i}`;
          deals.push({ id, companyId, status: 'open' });
          history.deal({ type: 'CreateDeal', dealId: id, companyId, fields: { title: `D ${i}`, value: i, stage: 'Lead' }, contact: null, assignedTo: null, at: new Date(at(i)) });
        } else {
          const options: DealStatusChangeFields[] =
            deal.status === 'open'
              ? [{ status: 'won' }, { status: 'lost' }, { status: 'won', stage: `S${i}` }, { stage: `S${i}` }]
              : [{ status: 'open' }, { status: deal.status === 'won' ? 'lost' : 'won' }, { stage: `S${i}` }];
          const change = options[Math.floor(next() * options.length)]!;
          history.deal({ type: 'ChangeDealStatus', dealId: deal.id, companyId: deal.companyId, change, contact: null, at: new Date(at(i)) });
          if (change.status) deal.status = change.status;
        }
      }
    };

    const applyLog = async () => {
      for (const type of WEBHOOK_EVENT_TYPES) await collectionOf(collections, type).apply(history.events);
    };

    /** Every webhook event of the company and types, in log and derivation order: what the feed must serve. */
    const expected = (companyId: string, types: readonly WebhookEventType[]) =>
      history.events
        .flatMap((event) => deriveWebhookEvents(event))
        .filter((event) => event.companyId === companyId && types.includes(event.type))
        .map((event) => event.eventId);

    /** Follows the feed page by page with `after = nextAfter`, as a client catching up would. */
    const follow = async (companyId: string, types: readonly WebhookEventType[], limit: number) => {
      const served: string[] = [];
      let after: string | null = null;
      const appliedUpTo = history.events[history.events.length - 1]!.position;
      for (let pages = 0; pages < 10_000; pages++) {
        const page = await readEventFeed(collections, { companyId, types, after, limit, appliedUpTo });
        served.push(...page.events.map((d) => d.event.eventId));
        expect(page.events.length, 'a page holds at most the limit, or one whole stored event').to.be.at.most(Math.max(limit, 3));
        after = page.nextAfter;
        if (!page.hasMore) return served;
      }
      throw new Error('the feed did not end');
    };

    it('serves every event of the company exactly once, in order, whatever the limit and the types', async () => {
      for (const seed of [1, 2, 3, 4, 5]) {
        const next = random(seed);
        history = new StoredHistory();
        collections = webhookEventCollections(new MemoryReadModelStore());
        randomHistory(next, 300);
        await applyLog();
        for (let round = 0; round < 6; round++) {
          const types = WEBHOOK_EVENT_TYPES.filter(() => next() < 0.6);
          if (types.length === 0) continue;
          const limit = 1 + Math.floor(next() * 8);
          const companyId = next() < 0.5 ? 'co-1' : 'co-2';
          expect(await follow(companyId, types, limit), `seed ${seed}, ${types.join(',')}, limit ${limit}`).to.deep.equal(
            expected(companyId, types),
          );
        }
        expect(await follow('co-1', WEBHOOK_EVENT_TYPES, 1000)).to.deep.equal(expected('co-1', WEBHOOK_EVENT_TYPES));
      }
    });

    it('tells that more follow when a single type has more events than the limit', async () => {
      for (let i = 1; i <= 3; i++) {
        history.contact({ type: 'CreateContact', contactId: `c-${i}`, companyId: 'co-1', fields: { name: `C ${i}`, phoneNumber: `+4915${i}000`, tags: [] }, at: new Date('2024-05-01T10:00:00.000Z') });
      }
      await applyLog();
      const read = (after: string | null) =>
        readEventFeed(collections, { companyId: 'co-1', types: ['contact.created'], after, limit: 2, appliedUpTo: '3' });
      const first = await read(null);
      expect(first.events.map((d) => d.position)).to.deep.equal(['1', '2']);
      expect(first).to.include({ hasMore: true, nextAfter: '2' });
      const second = await read('2');
      expect(second.events.map((d) => d.position)).to.deep.equal(['3']);
      expect(second).to.include({ hasMore: false, nextAfter: '3' });
    });

    it('gives each item the webhook envelope and the stored event\'s position', async () => {
      history.deal({ type: 'CreateDeal', dealId: 'd-1', companyId: 'co-1', fields: { title: 'Deal', value: 5, stage: 'Lead' }, contact: null, assignedTo: null, at: new Date('2024-05-01T10:00:00.000Z') });
      const [won] = history.deal({ type: 'ChangeDealStatus', dealId: 'd-1', companyId: 'co-1', change: { status: 'won' }, contact: null, at: new Date('2024-05-01T11:00:00.000Z') });
      await applyLog();
      const page = await readEventFeed(collections, { companyId: 'co-1', types: ['deal.won', 'deal.updated'], after: '1', limit: 10, appliedUpTo: '2' });
      const [first, second] = deriveWebhookEvents(won!);
      expect(page.events.map(eventFeedItemOf)).to.deep.equal([
        { position: '2', event: 'deal.won', timestamp: '2024-05-01T11:00:00.000Z', data: first!.data, metadata: { companyId: 'co-1', eventId: first!.eventId, source: 'api' } },
        { position: '2', event: 'deal.updated', timestamp: '2024-05-01T11:00:00.000Z', data: second!.data, metadata: { companyId: 'co-1', eventId: second!.eventId, source: 'api' } },
      ]);
    });
  });
});
