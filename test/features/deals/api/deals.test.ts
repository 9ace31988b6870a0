import { expect } from 'chai';
import { startHarness, type Harness } from '../../../support/httpHarness.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let phoneSeq = 0;
const phone = () => `+3361000${String(++phoneSeq).padStart(4, '0')}`;

describe('HTTP: deals', function () {
  this.timeout(30_000);
  let api: Harness;
  let contact: { id: string; name: string; email: string; phoneNumber: string };
  let userId: string;
  before(async () => {
    api = await startHarness();
    const created = await api.request('POST', '/contacts', {
      body: { name: 'Grace Hopper', phoneNumber: phone(), email: 'grace@example.com', currentCompany: 'Navy' },
    });
    contact = created.body.data;
    userId = await api.createUser(api.companyId, 'Sam Seller', 'sam@example.com');
  });
  after(() => api.close());

  const createDeal = (body: Record<string, unknown>, key?: string) =>
    api.request('POST', '/deals', { body, ...(key ? { key } : {}) });
  const changeStatus = (id: string, body: Record<string, unknown>, key?: string) =>
    api.request('PUT', `/deals/${id}/status`, { body, ...(key ? { key } : {}) });

  describe('POST /deals', () => {
    it('creates an open deal with the defaults and null for what is unset', async () => {
      const res = await createDeal({ title: 'Small deal', value: 0 });
      expect(res.status).to.equal(201);
      expect(res.body.data).to.deep.include({
        title: 'Small deal',
        value: 0,
        currency: 'EUR',
        priority: 'medium',
        status: 'open',
        description: null,
        stage: null,
        probability: null,
        expectedCloseDate: null,
        actualCloseDate: null,
        source: null,
        contact: null,
        assignedTo: null,
      });
      expect(res.body.data.createdAt).to.match(ISO_MS);
      expect(res.headers.get('x-log-position')).to.match(/^\d+$/);
    });

    it('embeds the contact and the assigned user, and takes every field', async () => {
      const res = await createDeal({
        title: 'Big deal',
        value: 125000.5,
        description: 'Fleet of engines',
        currency: 'usd',
        stage: 'Negotiation',
        priority: 'high',
        probability: 60,
        expectedCloseDate: '2027-03-31',
        source: 'Referral',
        contactId: contact.id,
        assignedToId: userId,
        status: 'won',
        id: 'mine',
      });
      expect(res.status).to.equal(201);
      expect(res.body.data).to.deep.include({
        title: 'Big deal',
        value: 125000.5,
        currency: 'USD',
        stage: 'Negotiation',
        priority: 'high',
        probability: 60,
        status: 'open',
        expectedCloseDate: '2027-03-31T00:00:00.000Z',
        source: 'Referral',
      });
      expect(res.body.data.id).to.not.equal('mine');
      expect(res.body.data.contact).to.deep.equal({
        id: contact.id,
        name: 'Grace Hopper',
        email: 'grace@example.com',
        phoneNumber: contact.phoneNumber,
        currentCompany: 'Navy',
      });
      expect(res.body.data.assignedTo).to.deep.equal({ id: userId, name: 'Sam Seller', email: 'sam@example.com' });
    });

    it('answers 400 for a contact that does not exist or belongs to another company', async () => {
      const other = await api.newCompany();
      const theirs = await api.request('POST', '/contacts', { key: other.key, body: { name: 'Theirs', phoneNumber: phone() } });
      for (const contactId of ['01900000-0000-7000-8000-000000000000', theirs.body.data.id]) {
        const res = await createDeal({ title: 'T', value: 1, contactId });
        expect(res.status).to.equal(400);
        expect(res.body).to.include({ success: false, error: 'Contact not found or does not belong to your company' });
      }
    });

    it('answers 400 for a user that does not exist or belongs to another company', async () => {
      const other = await api.newCompany();
      const theirUser = await api.createUser(other.companyId, 'Other User', 'other@example.com');
      for (const assignedToId of ['nobody', theirUser]) {
        const res = await createDeal({ title: 'T', value: 1, assignedToId });
        expect(res.status).to.equal(400);
        expect(res.body.error).to.equal('User not found or does not belong to your company');
      }
    });

    it('answers 422 "Missing required fields" for title and value', async () => {
      const res = await createDeal({ description: 'no title' });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 'Missing required fields', details: { missingFields: ['title', 'value'] } });
    });

    it('answers 422 "Validation failed" with a message per invalid field', async () => {
      const res = await createDeal({
        title: 't'.repeat(256),
        value: -1,
        probability: 101,
        priority: 'urgent',
        currency: 'ABC',
        expectedCloseDate: 'next week',
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.equal('Validation failed');
      expect(res.body.details).to.have.all.keys('title', 'value', 'probability', 'priority', 'currency', 'expectedCloseDate');
      const text = await createDeal({ title: 'T', value: '100' });
      expect(text.status).to.equal(422);
      expect(text.body.details).to.have.key('value');
    });
  });

  describe('GET /deals/:id', () => {
    it('reads its own write, and answers 404 "Deal not found" for unknown and other companies’ ids', async () => {
      const created = await createDeal({ title: 'Readable', value: 5 });
      const res = await api.request('GET', `/deals/${created.body.data.id}`);
      expect(res.body).to.deep.equal({ success: true, data: created.body.data });
      expect((await api.request('GET', '/deals/unknown')).body.error).to.equal('Deal not found');
      const other = await api.newCompany();
      const res404 = await api.request('GET', `/deals/${created.body.data.id}`, { key: other.key });
      expect(res404.status).to.equal(404);
      expect(res404.body.error).to.equal('Deal not found');
    });
  });

  describe('PUT /deals/:id/status', () => {
    let dealId: string;
    beforeEach(async () => {
      dealId = (await createDeal({ title: 'Pipeline deal', value: 1000, stage: 'Lead', contactId: contact.id })).body.data.id;
    });

    it('wins a deal, setting actualCloseDate to now when none is given', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const before = Date.now();
      const res = await changeStatus(dealId, { status: 'won' });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.include({ status: 'won', stage: 'Lead' });
      expect(Date.parse(res.body.data.actualCloseDate)).to.be.within(before - 1000, Date.now() + 1000);
      expect(Date.parse(res.body.data.updatedAt)).to.be.greaterThan(Date.parse(res.body.data.createdAt));
    });

    it('loses a deal with the given close date, date-only meaning midnight UTC', async () => {
      const res = await changeStatus(dealId, { status: 'lost', actualCloseDate: '2026-10-01' });
      expect(res.body.data).to.include({ status: 'lost', actualCloseDate: '2026-10-01T00:00:00.000Z' });
    });

    it('changes the stage alone without touching the status', async () => {
      const res = await changeStatus(dealId, { stage: 'Proposal' });
      expect(res.body.data).to.include({ status: 'open', stage: 'Proposal', actualCloseDate: null });
    });

    it('reopens a won deal (clearing its close date) and corrects won to lost', async () => {
      await changeStatus(dealId, { status: 'won' });
      const lost = await changeStatus(dealId, { status: 'lost' });
      expect(lost.body.data.status).to.equal('lost');
      const reopened = await changeStatus(dealId, { status: 'open' });
      expect(reopened.body.data).to.include({ status: 'open', actualCloseDate: null });
    });

    it('records DealStatusChanged with the status and stage moves', async () => {
      await changeStatus(dealId, { status: 'won', stage: 'Closed' });
      const events = await api.chronicle.stores.eventStore.readStream(`deal-${dealId}`);
      const changed = events.find((e) => e.type === 'DealStatusChanged')!;
      expect(changed.data).to.deep.include({ status: { from: 'open', to: 'won' }, stage: { from: 'Lead', to: 'Closed' } });
      expect(changed.metadata).to.include({ source: 'api', companyId: api.companyId });
    });

    it('changes nothing for a request that changes nothing', async () => {
      const first = await changeStatus(dealId, { stage: 'Lead' });
      expect(first.status).to.equal(200);
      const read = await api.request('GET', `/deals/${dealId}`);
      expect(first.body.data.updatedAt).to.equal(read.body.data.createdAt);
      expect(first.headers.get('x-log-position')).to.equal(null);
    });

    it('answers 422 for an empty body, a refused field, a bad status and a close date on an open deal', async () => {
      for (const body of [{}, { probability: 90 }, { status: 'archived' }, { actualCloseDate: '2026-01-01' }]) {
        const res = await changeStatus(dealId, body);
        expect(res.status, JSON.stringify(body)).to.equal(422);
        expect(res.body.error).to.equal('Validation failed');
      }
    });

    it('answers 404 for an unknown deal and another company’s deal', async () => {
      expect((await changeStatus('unknown', { status: 'won' })).status).to.equal(404);
      const other = await api.newCompany();
      const res = await changeStatus(dealId, { status: 'won' }, other.key);
      expect(res.status).to.equal(404);
      expect((await api.request('GET', `/deals/${dealId}`)).body.data.status).to.equal('open');
    });

    it('shows a renamed contact in the deals that embed it', async () => {
      await api.request('PUT', `/contacts/${contact.id}`, { body: { name: 'Rear Admiral Grace Hopper' } });
      const res = await api.request('GET', `/deals/${dealId}`);
      expect(res.body.data.contact.name).to.equal('Rear Admiral Grace Hopper');
      await api.request('PUT', `/contacts/${contact.id}`, { body: { name: 'Grace Hopper' } });
    });
  });

  describe('GET /deals', () => {
    let other: { key: string };
    before(async () => {
      other = await api.newCompany('Deals list company');
      const specs = [
        ['A', 'Lead', null],
        ['B', 'Lead', 'won'],
        ['C', 'Proposal', null],
        ['D', 'Proposal', 'lost'],
        ['E', 'Proposal', 'won'],
      ] as const;
      for (const [title, stage, status] of specs) {
        const created = await createDeal({ title, value: 10, stage }, other.key);
        if (status) await changeStatus(created.body.data.id, { status }, other.key);
      }
    });

    const titles = async (query: string) =>
      (await api.request('GET', `/deals${query}`, { key: other.key })).body.data.map((d: { title: string }) => d.title);

    it('lists in creation order with meta', async () => {
      const res = await api.request('GET', '/deals?limit=2&page=2', { key: other.key });
      expect(res.body.meta).to.deep.equal({ page: 2, limit: 2, total: 5, totalPages: 3 });
      expect(res.body.data.map((d: { title: string }) => d.title)).to.deep.equal(['C', 'D']);
    });

    it('filters by status, by stage, and by both', async () => {
      expect(await titles('?status=won')).to.deep.equal(['B', 'E']);
      expect(await titles('?stage=Proposal')).to.deep.equal(['C', 'D', 'E']);
      expect(await titles('?status=won&stage=Proposal')).to.deep.equal(['E']);
      expect(await titles('?stage=proposal')).to.deep.equal([]);
    });

    it('filters by createdSince and updatedSince', async () => {
      const all = (await api.request('GET', '/deals', { key: other.key })).body.data;
      expect(await titles(`?createdSince=${encodeURIComponent(all[2].createdAt)}`)).to.deep.equal(['D', 'E']);
      const updated = await titles(`?updatedSince=${encodeURIComponent(all[0].createdAt)}&status=won`);
      expect(updated).to.deep.equal(['B', 'E']);
    });

    it('answers 422 naming each bad parameter', async () => {
      const res = await api.request('GET', '/deals?status=pending&limit=0&updatedSince=soon', { key: other.key });
      expect(res.status).to.equal(422);
      expect(res.body.details).to.have.all.keys('status', 'limit', 'updatedSince');
    });

    it('never lists another company’s deals', async () => {
      const mine = await api.request('GET', '/deals?stage=Proposal');
      expect(mine.body.data.map((d: { title: string }) => d.title)).to.not.include('C');
    });

    it('lists a status change right after it was made (read-your-writes)', async () => {
      const created = await createDeal({ title: 'Fresh win', value: 1, stage: 'Fresh' }, other.key);
      await changeStatus(created.body.data.id, { status: 'won' }, other.key);
      expect(await titles('?status=won&stage=Fresh')).to.deep.equal(['Fresh win']);
    });

    it('needs deals:read', async () => {
      const { key } = await api.issueKey(api.companyId, ['contacts:read']);
      const res = await api.request('GET', '/deals', { key });
      expect(res.status).to.equal(403);
      expect(res.body.requiredPermission).to.equal('deals:read');
    });
  });
});
