import { expect } from 'chai';
import { startHarness, type Harness } from '../../../support/httpHarness.js';
import { deriveSampleData } from '../../../support/webhookEvents.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A trigger record without its `eventId` (checked to be a UUID first): the event's data, as the record shapes are. */
const withoutEventId = (record: Record<string, unknown>): Record<string, unknown> => {
  const { eventId, ...data } = record;
  expect(eventId).to.match(UUID);
  return data;
};
const withoutEventIds = (body: unknown): unknown =>
  Array.isArray(body) ? body.map(withoutEventId) : withoutEventId(body as Record<string, unknown>);

let phoneSeq = 0;
const phone = () => `+3362000${String(++phoneSeq).padStart(4, '0')}`;

describe('HTTP: triggers', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness()));
  after(() => api.close());

  /** A company of its own (so "no record yet" holds), with a full-permission key. */
  const freshCompany = async () => {
    const { key } = await api.newCompany('Trigger company');
    const request = async (method: string, path: string, body?: unknown) => {
      const res = await api.request(method, path, { key, ...(body !== undefined ? { body } : {}) });
      return path.startsWith('/triggers/') && res.status === 200 ? { ...res, body: withoutEventIds(res.body) } : res;
    };
    const createContact = async (name: string, extra: Record<string, unknown> = {}) => {
      const res = await request('POST', '/contacts', { name, phoneNumber: phone(), ...extra });
      expect(res.status).to.equal(201);
      return res.body.data;
    };
    return { key, request, createContact };
  };

  describe('GET /triggers/:event_type/sample', () => {
    it('answers an example of the record shape, bare, while the company has no record of the type', async () => {
      const { request } = await freshCompany();
      for (const type of ['contact.created', 'contact.updated', 'deal.created', 'deal.stage_changed', 'deal.won', 'deal.lost'] as const) {
        const res = await request('GET', `/triggers/${type}/sample`);
        expect(res.status, type).to.equal(200);
        expect(res.body, type).to.deep.equal(deriveSampleData(type));
        expect(res.body).to.not.have.property('success');
      }
    });

    it('answers the company\'s latest real record once there is one', async () => {
      const { request, createContact } = await freshCompany();
      await createContact('First');
      const latest = await createContact('Second', { tags: ['vip'] });
      const res = await request('GET', '/triggers/contact.created/sample');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(latest);
    });

    it('answers a real deal.won with exactly the specification\'s fields', async () => {
      const { request, createContact } = await freshCompany();
      const contact = await createContact('Winner', { email: 'winner@example.com' });
      const deal = (await request('POST', '/deals', { title: 'Big one', value: 5000, stage: 'Lead', contactId: contact.id })).body.data;
      const won = (await request('PUT', `/deals/${deal.id}/status`, { status: 'won', actualCloseDate: '2026-01-02' })).body.data;
      const res = await request('GET', '/triggers/deal.won/sample');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        id: deal.id,
        title: 'Big one',
        value: 5000,
        currency: 'EUR',
        stage: 'Lead',
        status: 'won',
        wonAt: '2026-01-02T00:00:00.000Z',
        contact: { id: contact.id, name: 'Winner', email: 'winner@example.com' },
      });
      expect((await request('GET', '/triggers/deal.updated/sample')).body).to.deep.equal(won);
    });

    it('answers 404 Unknown event type for anything else', async () => {
      for (const type of ['deal.archived', 'Contact.Created', 'contact']) {
        const res = await api.request('GET', `/triggers/${type}/sample`);
        expect(res.status, type).to.equal(404);
        expect(res.body).to.include({ success: false, error: 'Unknown event type' });
        expect(res.body.message).to.be.a('string').and.include('contact.created');
      }
    });
  });

  describe('GET /triggers/:event_type/recent', () => {
    it('answers a bare array of the company\'s records, newest first', async () => {
      const { request, createContact } = await freshCompany();
      const [a, b, c] = [await createContact('A'), await createContact('B'), await createContact('C')];
      const res = await request('GET', '/triggers/contact.created/recent');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal([c, b, a]);
    });

    it('answers [] while the company has no record of the type (no examples)', async () => {
      const { request } = await freshCompany();
      const res = await request('GET', '/triggers/deal.won/recent');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal([]);
    });

    it('shows only the caller\'s company', async () => {
      const mine = await freshCompany();
      const theirs = await freshCompany();
      await theirs.createContact('Theirs');
      const own = await mine.createContact('Mine');
      expect((await mine.request('GET', '/triggers/contact.created/recent')).body).to.deep.equal([own]);
    });

    it('returns at most `limit` records, 25 by default', async () => {
      const { request, createContact } = await freshCompany();
      const names: string[] = [];
      for (let i = 0; i < 26; i++) names.push((await createContact(`Contact ${i}`)).name);
      const all = await request('GET', '/triggers/contact.created/recent');
      expect(all.body.map((c: { name: string }) => c.name)).to.deep.equal(names.slice(1).reverse());
      const two = await request('GET', '/triggers/contact.created/recent?limit=2');
      expect(two.body.map((c: { name: string }) => c.name)).to.deep.equal(['Contact 25', 'Contact 24']);
      expect((await request('GET', '/triggers/contact.created/recent?limit=100')).body).to.have.length(26);
    });

    it('returns only records of events strictly after `since`', async () => {
      const { request, createContact } = await freshCompany();
      await createContact('Old');
      const middle = await createContact('Middle');
      await new Promise((resolve) => setTimeout(resolve, 5));
      const newest = await createContact('New');
      const res = await request('GET', `/triggers/contact.created/recent?since=${encodeURIComponent(middle.createdAt)}`);
      expect(res.body).to.deep.equal([newest]);
      const offset = await request('GET', `/triggers/contact.created/recent?since=${encodeURIComponent('2000-01-01T01:00:00+01:00')}`);
      expect(offset.body).to.have.length(3);
    });

    it('lists each derived event of a change under its own type, with what the change recorded', async () => {
      const { request, createContact } = await freshCompany();
      const contact = await createContact('Changing', { tags: ['a'] });
      const updated = (await request('PUT', `/contacts/${contact.id}`, { city: 'Lyon' })).body.data;
      expect((await request('GET', '/triggers/contact.updated/recent')).body).to.deep.equal([updated]);

      const deal = (await request('POST', '/deals', { title: 'Moves', value: 1, stage: 'Lead', contactId: contact.id })).body.data;
      const won = (await request('PUT', `/deals/${deal.id}/status`, { status: 'won', stage: 'Closed' })).body.data;
      const lost = (await request('PUT', `/deals/${deal.id}/status`, { status: 'lost' })).body.data;
      expect((await request('GET', '/triggers/deal.created/recent')).body).to.deep.equal([deal]);
      expect((await request('GET', '/triggers/deal.stage_changed/recent')).body).to.deep.equal([won]);
      expect((await request('GET', '/triggers/deal.lost/recent')).body).to.deep.equal([lost]);
      expect((await request('GET', '/triggers/deal.updated/recent')).body).to.deep.equal([lost, won]);
      const [wonRecord] = (await request('GET', '/triggers/deal.won/recent')).body;
      expect(wonRecord).to.include({ id: deal.id, status: 'won', stage: 'Closed', wonAt: won.actualCloseDate });
    });

    it('waits for X-Min-Log-Position before answering', async () => {
      const { request, key } = await freshCompany();
      const created = await request('POST', '/contacts', { name: 'Fresh', phoneNumber: phone() });
      const position = created.headers.get('x-log-position')!;
      const res = await api.request('GET', '/triggers/contact.created/recent', { key, headers: { 'X-Min-Log-Position': position } });
      expect(withoutEventIds(res.body)).to.deep.equal([created.body.data]);
    });

    it('tells every change of one record apart by `eventId` (its `id` is the record\'s), as deliveries do', async () => {
      const { request, key } = await freshCompany();
      const deal = (await request('POST', '/deals', { title: 'Moving', value: 1, stage: 'Lead' })).body.data;
      for (const stage of ['Qualified', 'Proposal', 'Negotiation']) {
        expect((await request('PUT', `/deals/${deal.id}/status`, { stage })).status).to.equal(200);
      }
      // Won, corrected to lost, won again: two deal.won records of one deal.
      for (const status of ['won', 'lost', 'won']) await request('PUT', `/deals/${deal.id}/status`, { status });
      const stageChanges = (await api.request('GET', '/triggers/deal.stage_changed/recent', { key })).body;
      expect(stageChanges.map((r: { id: string }) => r.id)).to.deep.equal([deal.id, deal.id, deal.id]);
      expect(stageChanges.map((r: { stage: string }) => r.stage)).to.deep.equal(['Negotiation', 'Proposal', 'Qualified']);
      expect(new Set(stageChanges.map((r: { eventId: string }) => r.eventId)).size).to.equal(3);
      const wins = (await api.request('GET', '/triggers/deal.won/recent', { key })).body;
      expect(wins).to.have.length(2);
      expect(wins[0].eventId).to.not.equal(wins[1].eventId);
      // The same ids as the event feed (and deliveries) carry.
      const feed = (await api.request('GET', '/events?types=deal.won', { key })).body.data;
      expect(feed.map((e: { metadata: { eventId: string } }) => e.metadata.eventId).reverse()).to.deep.equal(
        wins.map((r: { eventId: string }) => r.eventId),
      );
    });

    it('answers 422 naming `limit` or `since` when out of bounds or malformed', async () => {
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=ten', 'limit'],
        ['limit=2.5', 'limit'],
        ['limit=1&limit=2', 'limit'],
        ['since=yesterday', 'since'],
        ['since=2024-01-01T10:00:00', 'since'],
        ['since=2023-02-29', 'since'],
      ]) {
        const res = await api.request('GET', `/triggers/contact.created/recent?${query}`);
        expect(res.status, query).to.equal(422);
        expect(res.body.error).to.equal('Validation failed');
        expect(res.body.details, query).to.have.property(field!);
      }
    });

    it('answers 404 Unknown event type before looking at the query', async () => {
      const res = await api.request('GET', '/triggers/nothing/recent?limit=0');
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal('Unknown event type');
    });
  });

  describe('permissions', () => {
    const paths = ['/triggers/deal.won/sample', '/triggers/deal.won/recent'];

    it('needs webhooks:read (403 naming it)', async () => {
      const { key } = await api.issueKey(api.companyId, ['contacts:read', 'deals:read', 'webhooks:write']);
      for (const path of [...paths, '/triggers/contact.created/recent', '/triggers/unknown/sample']) {
        const res = await api.request('GET', path, { key });
        expect(res.status, path).to.equal(403);
        expect(res.body).to.include({ error: 'Permission denied: webhooks:read required', requiredPermission: 'webhooks:read' });
      }
    });

    it('needs the read permission of the records\' resource too (deals:read for deal.*)', async () => {
      const { key } = await api.issueKey(api.companyId, ['webhooks:read', 'contacts:read']);
      for (const path of paths) {
        const res = await api.request('GET', path, { key });
        expect(res.status, path).to.equal(403);
        expect(res.body).to.include({ error: 'Permission denied: deals:read required', requiredPermission: 'deals:read' });
        expect(res.body.availablePermissions).to.have.members(['webhooks:read', 'contacts:read']);
      }
      expect((await api.request('GET', '/triggers/contact.created/recent', { key })).status).to.equal(200);
    });

    it('needs contacts:read for contact.*', async () => {
      const { key } = await api.issueKey(api.companyId, ['webhooks:read', 'deals:read']);
      const res = await api.request('GET', '/triggers/contact.updated/sample', { key });
      expect(res.status).to.equal(403);
      expect(res.body.requiredPermission).to.equal('contacts:read');
      expect((await api.request('GET', '/triggers/deal.lost/sample', { key })).status).to.equal(200);
    });

    it('answers 401 without a key', async () => {
      const res = await api.request('GET', '/triggers/contact.created/sample', { key: null });
      expect(res.status).to.equal(401);
    });
  });
});
