import { expect } from 'chai';
import { sleep } from '../support/events.js';
import { positionOf, startHarness, withKey, type ApiResponse, type Harness } from '../support/httpHarness.js';

let phoneSeq = 0;
const phone = () => `+4917700${String(++phoneSeq).padStart(5, '0')}`;

/** One millisecond before / after an ISO instant. */
const shift = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

describe('HTTP: auditing (history and time travel)', function () {
  this.timeout(30_000);
  let api: Harness;
  /** A company of its own, so the feed holds exactly what these tests wrote. */
  let company: { companyId: string; key: string; keyId: string };
  let other: { companyId: string; key: string; keyId: string };

  before(async () => {
    api = await startHarness();
    company = await api.newCompany('Audited company');
    other = await api.newCompany('Another company');
  });
  after(() => api.close());

  const as = (key: string) => withKey(api, key);

  describe('GET /contacts/:id/history and /deals/:id/history', () => {
    let contactId: string;
    let writes: ApiResponse[];

    before(async () => {
      const client = as(company.key);
      const created = await client.post('/contacts', { name: 'Ada', phoneNumber: phone() });
      contactId = created.body.data.id;
      writes = [
        created,
        await client.put(`/contacts/${contactId}`, { city: 'London' }),
        await client.put(`/contacts/${contactId}`, { name: 'Ada Lovelace', email: 'ada@example.com' }),
      ];
    });

    it('lists every stored event oldest first: type, revision, log position, time, data, and who caused it', async () => {
      const res = await as(company.key).get(`/contacts/${contactId}/history`);
      expect(res.status).to.equal(200);
      expect(res.body.meta).to.deep.equal({ page: 1, limit: 50, total: 3, totalPages: 1 });
      const entries = res.body.data;
      expect(entries.map((e: { type: string }) => e.type)).to.deep.equal(['ContactCreated', 'ContactUpdated', 'ContactUpdated']);
      expect(entries.map((e: { revision: number }) => e.revision)).to.deep.equal([0, 1, 2]);
      expect(entries.map((e: { position: string }) => e.position)).to.deep.equal(writes.map(positionOf));
      entries.forEach((entry: { metadata: unknown }, i: number) =>
        expect(entry.metadata).to.deep.equal({ source: 'api', keyId: company.keyId, correlationId: writes[i]!.headers.get('x-request-id') }),
      );
      expect(entries[2].data.changes).to.deep.equal({ name: 'Ada Lovelace', email: 'ada@example.com' });
      expect(entries[2].data.previous).to.deep.equal({ name: 'Ada', email: null });
      expect(Date.parse(entries[2].timestamp)).to.be.at.least(Date.parse(entries[0].timestamp));
      expect(JSON.stringify(res.body)).not.to.contain(company.key);
    });

    it('shows a write as soon as it has answered (read from the log, not a read model)', async () => {
      const client = as(company.key);
      const created = await client.post('/contacts', { name: 'Fresh', phoneNumber: phone() });
      const updated = await client.put(`/contacts/${created.body.data.id}`, { city: 'Paris' });
      const res = await client.get(`/contacts/${created.body.data.id}/history`);
      expect(res.body.data.map((e: { position: string }) => e.position)).to.deep.equal([positionOf(created), positionOf(updated)]);
    });

    it('pages with page and limit, like the lists', async () => {
      const res = await as(company.key).get(`/contacts/${contactId}/history?page=2&limit=2`);
      expect(res.body.meta).to.deep.equal({ page: 2, limit: 2, total: 3, totalPages: 2 });
      expect(res.body.data.map((e: { revision: number }) => e.revision)).to.deep.equal([2]);
      const bad = await as(company.key).get(`/contacts/${contactId}/history?limit=500&page=0`);
      expect(bad.status).to.equal(422);
      expect(bad.body.details).to.have.keys('limit', 'page');
    });

    it('answers an unknown id and another company\'s id alike: 404', async () => {
      const unknown = await as(company.key).get('/contacts/no-such-contact/history');
      const theirs = await as(other.key).get(`/contacts/${contactId}/history`);
      for (const res of [unknown, theirs]) {
        expect(res.status).to.equal(404);
        expect(res.body.error).to.equal('Contact not found');
      }
    });

    it('needs contacts:read', async () => {
      const { key } = await api.issueKey(company.companyId, ['deals:read']);
      const res = await as(key).get(`/contacts/${contactId}/history`);
      expect(res.status).to.equal(403);
      expect(res.body.requiredPermission).to.equal('contacts:read');
    });

    it('lists a deal\'s events, and needs deals:read; another company\'s deal is a 404', async () => {
      const client = as(company.key);
      const created = await client.post('/deals', { title: 'Engines', value: 10, contactId });
      const won = await client.put(`/deals/${created.body.data.id}/status`, { status: 'won', stage: 'Closed' });
      const res = await client.get(`/deals/${created.body.data.id}/history`);
      expect(res.status).to.equal(200);
      expect(res.body.data.map((e: { type: string; position: string }) => [e.type, e.position])).to.deep.equal([
        ['DealCreated', positionOf(created)],
        ['DealStatusChanged', positionOf(won)],
      ]);
      expect(res.body.data[1].data).to.deep.include({ status: { from: 'open', to: 'won' }, stage: { from: null, to: 'Closed' } });
      const theirs = await as(other.key).get(`/deals/${created.body.data.id}/history`);
      expect(theirs.status).to.equal(404);
      expect(theirs.body.error).to.equal('Deal not found');
      const { key } = await api.issueKey(company.companyId, ['contacts:read']);
      expect((await as(key).get(`/deals/${created.body.data.id}/history`)).status).to.equal(403);
    });
  });

  describe('GET /contacts/:id?asOf= and /deals/:id?asOf=', () => {
    /** When each write of a contact was recorded, from its history. */
    const recordedTimes = async (path: string): Promise<string[]> =>
      (await as(company.key).get(`${path}/history`)).body.data.map((e: { timestamp: string }) => e.timestamp);

    it('returns a contact as it was at the instant: 404 before it existed, each version after, now for the future', async () => {
      const client = as(company.key);
      const created = await client.post('/contacts', { name: 'Grace', phoneNumber: phone(), tags: ['navy'] });
      const id = created.body.data.id;
      // Distinct recording times, so that each version has an instant of its own.
      await sleep(5);
      const renamed = await client.put(`/contacts/${id}`, { name: 'Grace Hopper' });
      await sleep(5);
      await client.put(`/contacts/${id}`, { tags: [] });
      const [t0, t1] = await recordedTimes(`/contacts/${id}`);

      const before = await client.get(`/contacts/${id}?asOf=${shift(t0!, -1)}`);
      expect(before.status).to.equal(404);
      expect(before.body.error).to.equal('Contact not found');
      expect((await client.get(`/contacts/${id}?asOf=${t0}`)).body.data).to.deep.equal(created.body.data);
      expect((await client.get(`/contacts/${id}?asOf=${encodeURIComponent(shift(t1!, 1))}`)).body.data).to.deep.equal(renamed.body.data);
      const now = await client.get(`/contacts/${id}`);
      const future = await client.get(`/contacts/${id}?asOf=2999-12-31`);
      expect(future.status).to.equal(200);
      expect(future.body.data).to.deep.equal(now.body.data);
      expect(future.body.data.tags).to.deep.equal([]);
    });

    it('takes an instant with an offset, and refuses one without a zone or malformed with the list parameters\' 422', async () => {
      const client = as(company.key);
      const created = await client.post('/contacts', { name: 'Zoned', phoneNumber: phone() });
      const id = created.body.data.id;
      const offset = await client.get(`/contacts/${id}?asOf=${encodeURIComponent('2999-01-01T12:00:00+02:00')}`);
      expect(offset.status).to.equal(200);
      for (const bad of ['2024-01-01T10:00:00', 'yesterday', '2023-02-29']) {
        const res = await client.get(`/contacts/${id}?asOf=${encodeURIComponent(bad)}`);
        expect(res.status, bad).to.equal(422);
        expect(res.body).to.deep.include({ error: 'Validation failed', details: { asOf: 'asOf must be an ISO 8601 date, or a date-time with a zone' } });
      }
      expect((await client.get(`/contacts/${id}?asOf=2999-01-01&asOf=2999-01-02`)).body.details).to.deep.equal({ asOf: 'asOf must be given once' });
      const list = await client.get('/contacts?createdSince=yesterday');
      expect(list.body.details).to.deep.equal({ createdSince: 'createdSince must be an ISO 8601 date, or a date-time with a zone' });
    });

    it('answers another company\'s contact or deal with 404 at any instant', async () => {
      const client = as(company.key);
      const contact = await client.post('/contacts', { name: 'Private', phoneNumber: phone() });
      const deal = await client.post('/deals', { title: 'Private deal', value: 1 });
      const theirs = as(other.key);
      expect((await theirs.get(`/contacts/${contact.body.data.id}?asOf=2999-01-01`)).status).to.equal(404);
      const dealRes = await theirs.get(`/deals/${deal.body.data.id}?asOf=2999-01-01`);
      expect(dealRes.status).to.equal(404);
      expect(dealRes.body.error).to.equal('Deal not found');
    });

    it('returns a deal as it was, with its contact as the contact was at that instant too', async () => {
      const client = as(company.key);
      const contact = await client.post('/contacts', { name: 'Charles', phoneNumber: phone(), email: 'charles@example.com' });
      const contactId = contact.body.data.id;
      const userId = await api.createUser(company.companyId, 'Sam Seller', 'sam@example.com');
      await sleep(5);
      const deal = await client.post('/deals', { title: 'Difference engine', value: 1000, stage: 'Lead', contactId, assignedToId: userId });
      const dealId = deal.body.data.id;
      await sleep(5);
      await client.put(`/contacts/${contactId}`, { name: 'Charles Babbage' });
      await sleep(5);
      const won = await client.put(`/deals/${dealId}/status`, { status: 'won' });
      await sleep(5);
      await client.put(`/contacts/${contactId}`, { email: 'babbage@example.com' });
      const [dealCreatedAt, dealWonAt] = await recordedTimes(`/deals/${dealId}`);
      const [, renamedAt, emailChangedAt] = await recordedTimes(`/contacts/${contactId}`);

      expect((await client.get(`/deals/${dealId}?asOf=${shift(dealCreatedAt!, -1)}`)).status).to.equal(404);
      const atCreation = (await client.get(`/deals/${dealId}?asOf=${dealCreatedAt}`)).body.data;
      expect(atCreation).to.deep.equal(deal.body.data);
      expect(atCreation.contact.name).to.equal('Charles');
      expect(atCreation.assignedTo).to.deep.equal({ id: userId, name: 'Sam Seller', email: 'sam@example.com' });
      const afterRename = (await client.get(`/deals/${dealId}?asOf=${renamedAt}`)).body.data;
      expect(afterRename).to.deep.include({ status: 'open', updatedAt: deal.body.data.updatedAt });
      expect(afterRename.contact).to.include({ name: 'Charles Babbage', email: 'charles@example.com' });
      const atWin = (await client.get(`/deals/${dealId}?asOf=${dealWonAt}`)).body.data;
      expect(atWin).to.deep.equal(won.body.data);
      expect(atWin.contact.email).to.equal('charles@example.com');
      const now = (await client.get(`/deals/${dealId}`)).body.data;
      expect(now.contact.email).to.equal('babbage@example.com');
      expect((await client.get(`/deals/${dealId}?asOf=${shift(emailChangedAt!, 1)}`)).body.data).to.deep.equal(now);
    });
  });
});
