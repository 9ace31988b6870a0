import { expect } from 'chai';
import { webhookEventId } from '../../../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { positionOf, startHarness, withKey, type ApiResponse, type Harness } from '../../../support/httpHarness.js';
import { WEBHOOK_EVENT_TYPES } from '../../../support/webhookEvents.js';

let phoneSeq = 0;
const phone = () => `+4917800${String(++phoneSeq).padStart(5, '0')}`;

describe('HTTP: the company event feed (GET /events)', function () {
  this.timeout(30_000);
  let api: Harness;
  let other: { companyId: string; key: string; keyId: string };

  before(async () => {
    api = await startHarness();
    other = await api.newCompany('Another company');
  });
  after(() => api.close());

  const as = (key: string) => withKey(api, key);

  describe('GET /events', () => {
    /** Positions of the writes below, in order. */
    let positions: { contact: string; contactUpdate: string; deal: string; won: string };
    let feed: ReturnType<typeof as>;
    let feedCompanyId: string;

    before(async () => {
      const fresh = await api.newCompany('Feed company');
      feedCompanyId = fresh.companyId;
      feed = as(fresh.key);
      const contact = await feed.post('/contacts', { name: 'Feed contact', phoneNumber: phone(), tags: ['vip'] });
      const update = await feed.put(`/contacts/${contact.body.data.id}`, { city: 'Berlin' });
      const deal = await feed.post('/deals', { title: 'Feed deal', value: 42, stage: 'Lead', contactId: contact.body.data.id });
      const won = await feed.put(`/deals/${deal.body.data.id}/status`, { status: 'won', stage: 'Closed' });
      positions = { contact: positionOf(contact), contactUpdate: positionOf(update), deal: positionOf(deal), won: positionOf(won) };
    });

    const summary = (res: ApiResponse) => res.body.data.map((item: { event: string; position: string }) => [item.event, item.position]);

    it('lists the company\'s webhook events in log order, one stored event\'s events in derivation order', async () => {
      const res = await feed.get('/events');
      expect(res.status).to.equal(200);
      expect(summary(res)).to.deep.equal([
        ['contact.created', positions.contact],
        ['contact.updated', positions.contactUpdate],
        ['deal.created', positions.deal],
        ['deal.won', positions.won],
        ['deal.stage_changed', positions.won],
        ['deal.updated', positions.won],
      ]);
      expect(res.body.meta).to.deep.equal({ limit: 100, types: [...WEBHOOK_EVENT_TYPES], hasMore: false, nextAfter: positions.won });
    });

    it('carries the webhook envelope: the event ids of deliveries, the record as data, the company and source', async () => {
      const res = await feed.get(`/events?after=${positions.deal}`);
      const [won, , updated] = res.body.data;
      const [stored] = await api.chronicle.stores.eventStore.readAll({ after: String(BigInt(positions.won) - 1n), maxCount: 1 });
      expect(won.metadata).to.deep.include({ eventId: webhookEventId(stored!.id, 'deal.won'), source: 'api' });
      expect(won.data).to.include({ status: 'won', stage: 'Closed', title: 'Feed deal' }).and.have.property('wonAt');
      expect(updated.data).to.include({ status: 'won', stage: 'Closed' }).and.have.property('actualCloseDate');
      expect(updated.metadata.eventId).to.equal(webhookEventId(stored!.id, 'deal.updated'));
      expect(won.timestamp).to.equal(updated.data.updatedAt);
    });

    it('resumes after a position, and answers an empty page with the same position to pass next time', async () => {
      expect(summary(await feed.get(`/events?after=${positions.contactUpdate}`))[0]).to.deep.equal(['deal.created', positions.deal]);
      const caughtUp = await feed.get(`/events?after=${positions.won}`);
      expect(caughtUp.body.data).to.deep.equal([]);
      expect(caughtUp.body.meta).to.deep.include({ hasMore: false, nextAfter: positions.won });
    });

    it('pages by limit without ever splitting the events of one stored event', async () => {
      const first = await feed.get('/events?limit=4');
      expect(summary(first).map(([event]: string[]) => event)).to.deep.equal(['contact.created', 'contact.updated', 'deal.created']);
      expect(first.body.meta).to.deep.include({ limit: 4, hasMore: true, nextAfter: positions.deal });
      const second = await feed.get(`/events?limit=4&after=${first.body.meta.nextAfter}`);
      expect(summary(second).map(([event]: string[]) => event)).to.deep.equal(['deal.won', 'deal.stage_changed', 'deal.updated']);
      expect(second.body.meta).to.deep.include({ hasMore: false, nextAfter: positions.won });
      const whole = await feed.get(`/events?limit=1&after=${positions.deal}`);
      expect(whole.body.data).to.have.length(3);
    });

    it('reads only the named types', async () => {
      const res = await feed.get('/events?types=deal.won,contact.created');
      expect(summary(res)).to.deep.equal([
        ['contact.created', positions.contact],
        ['deal.won', positions.won],
      ]);
      expect(res.body.meta.types).to.deep.equal(['contact.created', 'deal.won']);
    });

    it('never shows another company\'s events', async () => {
      const theirs = as(other.key);
      const contact = await theirs.post('/contacts', { name: 'Their contact', phoneNumber: phone() });
      expect(summary(await theirs.get('/events'))).to.deep.equal([['contact.created', positionOf(contact)]]);
      const ours = await feed.get(`/events?after=${positions.won}`);
      expect(ours.body.data).to.deep.equal([]);
    });

    it('serves the types the key may read, and refuses a named type it may not (403 naming the permission)', async () => {
      const contactsOnly = as((await api.issueKey(feedCompanyId, ['contacts:read'])).key);
      const res = await contactsOnly.get('/events');
      expect(summary(res).map(([event]: string[]) => event)).to.deep.equal(['contact.created', 'contact.updated']);
      expect(res.body.meta.types).to.deep.equal(['contact.created', 'contact.updated', 'contact.deleted', 'contact.restored', 'contact.erased']);
      const refused = await contactsOnly.get('/events?types=contact.created,deal.won');
      expect(refused.status).to.equal(403);
      expect(refused.body).to.deep.include({ error: 'Permission denied: deals:read required', requiredPermission: 'deals:read' });
      const neither = await as((await api.issueKey(feedCompanyId, ['agents:read', 'webhooks:read'])).key).get('/events');
      expect(neither.status).to.equal(403);
      expect(neither.body).to.deep.include({ requiredPermission: 'contacts:read', availablePermissions: ['agents:read', 'webhooks:read'] });
    });

    it('refuses a malformed after, limit or types with a 422 naming each', async () => {
      const cases: [string, string[]][] = [
        ['after=abc', ['after']],
        ['after=007', ['after']],
        ['after=-1', ['after']],
        ['limit=0', ['limit']],
        ['limit=1001', ['limit']],
        ['limit=ten', ['limit']],
        ['types=deal.won,nope', ['types']],
        ['types=deal.won&types=deal.lost', ['types']],
        ['after=x&limit=0&types=nope', ['after', 'limit', 'types']],
      ];
      for (const [query, fields] of cases) {
        const res = await feed.get(`/events?${query}`);
        expect(res.status, query).to.equal(422);
        expect(Object.keys(res.body.details), query).to.have.members(fields);
      }
      expect((await feed.get('/events?limit=1000')).status).to.equal(200);
    });
  });
});
