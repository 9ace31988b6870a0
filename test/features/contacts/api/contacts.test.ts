import { expect } from 'chai';
import { startHarness, type Harness } from '../../../support/httpHarness.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let phoneSeq = 0;
const phone = () => `+4915100${String(++phoneSeq).padStart(5, '0')}`;

describe('HTTP: contacts', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness()));
  after(() => api.close());

  const create = (body: Record<string, unknown>, key?: string) =>
    api.request('POST', '/contacts', { body, ...(key ? { key } : {}) });

  describe('POST /contacts', () => {
    it('creates a contact with every field and answers 201 with server-assigned id and UTC timestamps', async () => {
      const res = await create({
        name: 'Ada Lovelace',
        phoneNumber: '+44 20 7946 0001',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        position: 'Analyst',
        currentCompany: 'Analytical Engines',
        industrySector: 'Computing',
        city: 'London',
        country: 'UK',
        tags: ['vip', 'engine'],
        id: 'chosen-by-client',
        createdAt: '2000-01-01T00:00:00.000Z',
      });
      expect(res.status).to.equal(201);
      expect(res.body.success).to.equal(true);
      const contact = res.body.data;
      expect(contact).to.deep.include({
        name: 'Ada Lovelace',
        firstName: 'Ada',
        email: 'ada@example.com',
        position: 'Analyst',
        tags: ['vip', 'engine'],
        phoneNumber: '+442079460001',
      });
      expect(contact.id).to.not.equal('chosen-by-client');
      expect(contact.createdAt).to.match(ISO_MS).and.not.equal('2000-01-01T00:00:00.000Z');
      expect(contact.updatedAt).to.equal(contact.createdAt);
      expect(res.headers.get('x-log-position')).to.match(/^\d+$/);
    });

    it('records ContactCreated with the key, company, source and request id as metadata', async () => {
      const res = await create({ name: 'Meta Data', phoneNumber: phone() }, undefined);
      const [event] = await api.chronicle.stores.eventStore.readStream(`contact-${res.body.data.id}`);
      expect(event!.type).to.equal('ContactCreated');
      expect(event!.metadata).to.include({ source: 'api', companyId: api.companyId, correlationId: res.headers.get('x-request-id') });
      expect(event!.metadata.keyId).to.be.a('string');
      expect(JSON.stringify(event)).not.to.contain(api.key);
    });

    it('answers 422 "Missing required fields" listing each missing field', async () => {
      const res = await create({ email: 'a@example.com' });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 'Missing required fields', details: { missingFields: ['name', 'phoneNumber'] } });
      const one = await create({ name: 'Only name' });
      expect(one.body.details).to.deep.equal({ missingFields: ['phoneNumber'] });
    });

    it('answers 422 "Validation failed" with a message per invalid field', async () => {
      const res = await create({
        name: 'x'.repeat(256),
        phoneNumber: phone(),
        email: 'not-an-email',
        firstName: 'f'.repeat(101),
        currentCompany: 'c'.repeat(256),
        city: 'c'.repeat(101),
        tags: ['ok', 7],
      });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.equal('Validation failed');
      expect(res.body.details).to.have.all.keys('name', 'email', 'firstName', 'currentCompany', 'city', 'tags');
      for (const message of Object.values(res.body.details)) expect(message).to.be.a('string').and.not.equal('');
    });

    it('accepts the longest allowed values', async () => {
      const res = await create({ name: 'n'.repeat(255), phoneNumber: phone(), lastName: 'l'.repeat(100), currentCompany: 'c'.repeat(255) });
      expect(res.status).to.equal(201);
    });

    it('answers 409 with existingContactId for a number already used, however it is written', async () => {
      const first = await create({ name: 'First', phoneNumber: '+49 151 000' });
      expect(first.status).to.equal(201);
      for (const written of ['+49151000', '0049-151-000', '+49 (151) 000']) {
        const res = await create({ name: 'Second', phoneNumber: written });
        expect(res.status, written).to.equal(409);
        expect(res.body).to.deep.include({
          success: false,
          error: 'Contact with this phone number already exists',
          existingContactId: first.body.data.id,
        });
      }
    });

    it('lets exactly one of 10 concurrent creates with the same number succeed', async () => {
      const number = phone();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ name: `Racer ${i}`, phoneNumber: number })));
      const created = results.filter((r) => r.status === 201);
      const conflicts = results.filter((r) => r.status === 409);
      expect(created).to.have.length(1);
      expect(conflicts).to.have.length(9);
      for (const c of conflicts) expect(c.body.existingContactId).to.equal(created[0]!.body.data.id);
    });

    it('keeps phone numbers unique per company, not across companies', async () => {
      const number = phone();
      const other = await api.newCompany();
      expect((await create({ name: 'Here', phoneNumber: number })).status).to.equal(201);
      expect((await create({ name: 'There', phoneNumber: number }, other.key)).status).to.equal(201);
    });
  });

  describe('GET /contacts/:id', () => {
    it('reads its own write at once', async () => {
      const created = await create({ name: 'Fresh', phoneNumber: phone() });
      const res = await api.request('GET', `/contacts/${created.body.data.id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: created.body.data });
    });

    it('answers 404 "Contact not found" for an unknown id', async () => {
      const res = await api.request('GET', '/contacts/01900000-0000-7000-8000-000000000000');
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ success: false, error: 'Contact not found' });
    });

    it('answers another company’s id exactly as an unknown id (404, never 403)', async () => {
      const other = await api.newCompany();
      const theirs = await create({ name: 'Secret', phoneNumber: phone() }, other.key);
      const res = await api.request('GET', `/contacts/${theirs.body.data.id}`);
      expect(res.status).to.equal(404);
      expect(res.body.error).to.equal('Contact not found');
      const update = await api.request('PUT', `/contacts/${theirs.body.data.id}`, { body: { city: 'Hacked' } });
      expect(update.status).to.equal(404);
      const still = await api.request('GET', `/contacts/${theirs.body.data.id}`, { key: other.key });
      expect(still.body.data.city).to.equal(null);
    });
  });

  describe('PUT /contacts/:id', () => {
    it('changes only the fields sent, moves updatedAt, keeps createdAt', async () => {
      const created = (await create({ name: 'Partial', phoneNumber: phone(), city: 'Berlin', email: 'p@example.com' })).body.data;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const res = await api.request('PUT', `/contacts/${created.id}`, { body: { city: 'Hamburg', position: 'CTO' } });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.include({ city: 'Hamburg', position: 'CTO', email: 'p@example.com', name: 'Partial' });
      expect(res.body.data.createdAt).to.equal(created.createdAt);
      expect(res.body.data.updatedAt > created.updatedAt).to.equal(true);
      const read = await api.request('GET', `/contacts/${created.id}`);
      expect(read.body.data).to.deep.equal(res.body.data);
    });

    it('records what changed in ContactUpdated', async () => {
      const created = (await create({ name: 'Changes', phoneNumber: phone(), city: 'Rome' })).body.data;
      await api.request('PUT', `/contacts/${created.id}`, { body: { city: 'Milan' } });
      const events = await api.chronicle.stores.eventStore.readStream(`contact-${created.id}`);
      const updated = events.find((e) => e.type === 'ContactUpdated')!;
      expect((updated.data as { changes: unknown }).changes).to.deep.equal({ city: 'Milan' });
      expect(updated.metadata.source).to.equal('api');
    });

    it('changes the phone number: the new one is taken, the old one is free again', async () => {
      const [oldNumber, newNumber] = [phone(), phone()];
      const created = (await create({ name: 'Mover', phoneNumber: oldNumber })).body.data;
      const res = await api.request('PUT', `/contacts/${created.id}`, { body: { phoneNumber: newNumber } });
      expect(res.status).to.equal(200);
      expect((await create({ name: 'Taker', phoneNumber: newNumber })).status).to.equal(409);
      expect((await create({ name: 'Reuser', phoneNumber: oldNumber })).status).to.equal(201);
    });

    it('answers 409 when the new number belongs to another contact', async () => {
      const a = (await create({ name: 'A', phoneNumber: phone() })).body.data;
      const b = (await create({ name: 'B', phoneNumber: phone() })).body.data;
      const res = await api.request('PUT', `/contacts/${b.id}`, { body: { phoneNumber: a.phoneNumber } });
      expect(res.status).to.equal(409);
      expect(res.body.existingContactId).to.equal(a.id);
    });

    it('answers 404 for an unknown id and 422 for invalid or empty bodies', async () => {
      expect((await api.request('PUT', '/contacts/unknown', { body: { city: 'X' } })).status).to.equal(404);
      const created = (await create({ name: 'Valid', phoneNumber: phone() })).body.data;
      const invalid = await api.request('PUT', `/contacts/${created.id}`, { body: { email: 'nope', name: '' } });
      expect(invalid.status).to.equal(422);
      expect(invalid.body.details).to.have.all.keys('email', 'name');
      const empty = await api.request('PUT', `/contacts/${created.id}`, { body: {} });
      expect(empty.status).to.equal(422);
    });
  });

  describe('GET /contacts', () => {
    let other: { key: string };
    before(async () => {
      other = await api.newCompany('List company');
      for (let i = 1; i <= 7; i++) {
        const name = i === 4 ? 'Zoë (VIP) .*( Müller' : `Listed person ${i}`;
        const res = await create({ name, phoneNumber: `+3310000000${i}`, email: `listed${i}@example.org` }, other.key);
        expect(res.status).to.equal(201);
      }
    });

    it('lists in creation order with meta', async () => {
      const res = await api.request('GET', '/contacts?limit=3&page=2', { key: other.key });
      expect(res.status).to.equal(200);
      expect(res.body.meta).to.deep.equal({ page: 2, limit: 3, total: 7, totalPages: 3 });
      expect(res.body.data.map((c: { email: string }) => c.email)).to.deep.equal([
        'listed4@example.org',
        'listed5@example.org',
        'listed6@example.org',
      ]);
    });

    it('defaults to page 1 and limit 50', async () => {
      const res = await api.request('GET', '/contacts', { key: other.key });
      expect(res.body.meta).to.deep.equal({ page: 1, limit: 50, total: 7, totalPages: 1 });
    });

    it('searches name, e-mail and phone number case-insensitively and literally', async () => {
      const search = async (text: string) =>
        (await api.request('GET', `/contacts?search=${encodeURIComponent(text)}`, { key: other.key })).body.data.length;
      expect(await search('müller')).to.equal(1);
      expect(await search('.*(')).to.equal(1);
      expect(await search('(vip)')).to.equal(1);
      expect(await search('LISTED5@')).to.equal(1);
      expect(await search('+33100000003')).to.equal(1);
      expect(await search('listed')).to.equal(7);
      expect(await search('.*')).to.equal(1);
    });

    it('filters by createdSince and updatedSince, combined with search', async () => {
      const all = (await api.request('GET', '/contacts', { key: other.key })).body.data;
      const since = all[4].createdAt;
      const created = await api.request('GET', `/contacts?createdSince=${encodeURIComponent(since)}`, { key: other.key });
      expect(created.body.data.map((c: { id: string }) => c.id)).to.deep.equal(all.slice(5).map((c: { id: string }) => c.id));
      await api.request('PUT', `/contacts/${all[1].id}`, { key: other.key, body: { city: 'Lyon' } });
      const updated = await api.request('GET', `/contacts?updatedSince=${encodeURIComponent(since)}&search=listed`, { key: other.key });
      expect(updated.body.data.map((c: { id: string }) => c.id)).to.include(all[1].id);
      expect(updated.body.data.map((c: { id: string }) => c.id)).not.to.include(all[0].id);
    });

    it('answers 422 naming each bad parameter', async () => {
      const res = await api.request('GET', '/contacts?page=0&limit=201&createdSince=yesterday', { key: other.key });
      expect(res.status).to.equal(422);
      expect(res.body.details).to.have.all.keys('page', 'limit', 'createdSince');
      expect((await api.request('GET', '/contacts?limit=abc', { key: other.key })).status).to.equal(422);
    });

    it('never lists another company’s contacts', async () => {
      const mine = await api.request('GET', '/contacts?search=listed', { key: api.key });
      expect(mine.body.data).to.deep.equal([]);
      expect(mine.body.meta.total).to.equal(0);
    });

    it('lists a contact right after its creation (read-your-writes)', async () => {
      const number = phone();
      const created = await create({ name: 'Just now', phoneNumber: number });
      const res = await api.request('GET', `/contacts?search=${encodeURIComponent(number)}`);
      expect(res.body.data.map((c: { id: string }) => c.id)).to.deep.equal([created.body.data.id]);
    });

    it('waits for X-Min-Log-Position and refuses a malformed one', async () => {
      const created = await create({ name: 'Positioned', phoneNumber: phone() });
      const position = created.headers.get('x-log-position')!;
      const res = await api.request('GET', `/contacts/${created.body.data.id}`, { headers: { 'X-Min-Log-Position': position } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-read-your-writes'), 'applied: no timeout said').to.equal(null);
      const bad = await api.request('GET', '/contacts', { headers: { 'X-Min-Log-Position': 'latest' } });
      expect(bad.status).to.equal(400);
    });
  });

  describe('a read-your-writes wait that runs out', () => {
    let short: Harness;
    before(async () => {
      short = await startHarness({ READ_YOUR_WRITES_TIMEOUT_MS: '300' });
    });
    after(() => short.close());

    it('answers with X-Read-Your-Writes: timeout when X-Min-Log-Position is beyond what the read models applied', async () => {
      const started = performance.now();
      const res = await short.request('GET', '/contacts', { headers: { 'X-Min-Log-Position': '999999' } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-read-your-writes')).to.equal('timeout');
      expect(performance.now() - started).to.be.at.least(250);
      const applied = await short.request('GET', '/contacts', { headers: { 'X-Min-Log-Position': '1' } });
      expect(applied.headers.get('x-read-your-writes')).to.equal(null);
    });
  });

  describe('request bodies', () => {
    it('answers 400 for malformed JSON, 415 without a JSON content type, 413 over 1 MB', async () => {
      const malformed = await api.request('POST', '/contacts', { rawBody: '{"name": ' });
      expect(malformed.status).to.equal(400);
      expect(malformed.body).to.include({ success: false, error: 'Bad request' });
      const form = await api.request('POST', '/contacts', { rawBody: 'name=a', contentType: 'application/x-www-form-urlencoded' });
      expect(form.status).to.equal(415);
      const none = await api.request('POST', '/contacts', { contentType: null });
      expect(none.status).to.equal(415);
      const big = await api.request('POST', '/contacts', { body: { name: 'x'.repeat(1_100_000), phoneNumber: phone() } });
      expect(big.status).to.equal(413);
    });

    it('answers 422 for a JSON body that is not an object', async () => {
      const res = await api.request('POST', '/contacts', { rawBody: '[1,2]' });
      expect(res.status).to.equal(422);
    });
  });
});
